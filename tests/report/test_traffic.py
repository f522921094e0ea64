"""Traffic reports: the committed traces (no eval run), per agent and per model."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from google.adk.agents import LlmAgent
from google.adk.runners import InMemoryRunner
from google.genai import types

from tests.report.helpers import JsonReader, score_with
from tests.support.paths import DATA
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.harness.replay import RUN_CONFIG
from tracegrade.ingest import ingest_file
from tracegrade.report import (
    ReportError,
    RunReport,
    build_report,
    build_traffic_report,
    render_traffic,
)
from tracegrade.report.traffic.build import SAMPLING_CAVEAT, TrafficReport
from tracegrade.scoring import Selection
from tracegrade.store import LocalReader, SpanWriter, connect, records
from tracegrade.testing import ScriptedLlm

TRACES = sorted((DATA / "traces").glob("*.otlp.jsonl"))
BUDGETS = {"criteria": {"token_usage": {"max": 500}, "latency": {"p95": 50}}}


@pytest.fixture(scope="module")
def traffic(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LocalReader, str]]:
    path = tmp_path_factory.mktemp("traffic") / "traffic.duckdb"
    writer = SpanWriter.open(path)
    try:
        for trace_file in TRACES:
            assert ingest_file(trace_file, writer).ok
        scoring_id = score_with(writer.connection, Selection(), BUDGETS)
    finally:
        writer.close()
    connection = connect(path, read_only=True)
    yield LocalReader(connection), scoring_id
    connection.close()


@pytest.fixture(scope="module")
def report(traffic: tuple[LocalReader, str]) -> TrafficReport:
    return build_traffic_report(*traffic)


def _turns(reader: LocalReader) -> list[dict[str, Any]]:
    return records(reader, "SELECT * FROM turns WHERE run_id IS NULL ORDER BY turn_id")


@costly
def test_rows_overall_per_agent_and_per_model(
    report: TrafficReport, traffic: tuple[LocalReader, str]
) -> None:
    turns = _turns(traffic[0])
    assert report.overall.turns == len(turns) > 0
    assert report.overall.errored_turns == sum(1 for t in turns if t["is_error"])
    assert report.overall.tool_errors == sum(t["tool_errors"] for t in turns)
    agents = sorted({t["root_agent"] for t in turns})
    assert [r.name for r in report.by_agent] == agents
    models = sorted({m for t in turns for m in t["models"]})
    assert [r.name for r in report.by_model] == models == ["gemini-2.5-flash", "gpt-4o-mini"]
    for row in report.by_model:
        assert row.turns == sum(1 for t in turns if row.name in t["models"])


def test_budgets_breached_are_the_failed_turn_scores(
    report: TrafficReport, traffic: tuple[LocalReader, str]
) -> None:
    reader, scoring_id = traffic
    failed = records(
        reader,
        "SELECT metric, count(*) AS n FROM scores WHERE scoring_id = ? AND level = 'turn' "
        "AND status = 'failed' GROUP BY metric ORDER BY metric",
        [scoring_id],
    )
    assert report.overall.budgets_breached == {r["metric"]: r["n"] for r in failed}
    assert report.overall.budgets_breached["token_usage"] > 0
    per_model = sum(r.budgets_breached.get("token_usage", 0) for r in report.by_model)
    assert per_model == report.overall.budgets_breached["token_usage"]
    latency = next(m for m in report.metrics if m.metric == "latency")
    assert latency.status == "failed"
    assert latency.breached[0].startswith("p95 ")


def test_cost_is_per_priced_turn(report: TrafficReport) -> None:
    overall = report.overall
    # The turns that errored have no cost: priced turns are fewer, and unknown is not 0.
    assert 0 < overall.priced_turns < overall.turns
    assert overall.cost_per_turn_usd is not None
    assert overall.cost_per_turn_usd > 0
    assert f"({overall.priced_turns}/{overall.turns} priced)" in render_traffic(report)


def test_the_render_shows_agents_models_and_the_sampling_caveat(report: TrafficReport) -> None:
    text = render_traffic(report)
    for name in ["per agent", "weather_agent", "per model", "gpt-4o-mini", "token_usage"]:
        assert name in text
    assert SAMPLING_CAVEAT in text.replace("\n", " ")
    assert "all traffic" in text


@costly
def test_a_sampled_selection_says_so(tmp_path: Path) -> None:
    writer = SpanWriter.open(tmp_path / "sampled.duckdb")
    try:
        for trace_file in TRACES:
            ingest_file(trace_file, writer)
        scoring_id = score_with(writer.connection, Selection(sample=0.5), BUDGETS)
        report = build_traffic_report(LocalReader(writer.connection), scoring_id)
    finally:
        writer.close()
    assert report.selection["sample"] == 0.5
    text = render_traffic(report)
    assert "sampled at 50% of trace ids" in text
    assert SAMPLING_CAVEAT in text.replace("\n", " ")


def test_repeated_tool_calls_are_counted(
    captured: BlockingSpanProcessor, writer: SpanWriter
) -> None:
    _run_looping_agent()
    assert captured.force_flush()
    scoring_id = score_with(writer.connection, Selection(), BUDGETS)
    report = build_traffic_report(LocalReader(writer.connection), scoring_id)
    assert (report.overall.duplicate_call_turns, report.overall.consecutive_repeats) == (1, 2)
    assert [r.name for r in report.by_agent] == ["looper"]


def _run_looping_agent() -> None:
    """One turn of production-like traffic that calls the same tool three times running."""

    def lookup(city: str) -> dict[str, str]:
        """Look a city up."""
        return {"city": city}

    same = {"tool_calls": [{"name": "lookup", "args": {"city": "Paris"}}]}
    agent = LlmAgent(
        name="looper",
        model=ScriptedLlm.from_responses([same, same, same, {"text": "Paris."}]),
        tools=[lookup],
    )

    async def run() -> None:
        runner = InMemoryRunner(agent=agent, app_name="app")
        await runner.session_service.create_session(app_name="app", user_id="u", session_id="s")
        message = types.Content(role="user", parts=[types.Part(text="Find Paris")])
        async for _ in runner.run_async(
            user_id="u", session_id="s", new_message=message, run_config=RUN_CONFIG
        ):
            pass
        await runner.close()

    asyncio.run(run())


def test_eval_and_traffic_scorings_are_not_mixed_up(
    traffic: tuple[LocalReader, str], reader: LocalReader, base_report: RunReport
) -> None:
    traffic_reader, traffic_scoring = traffic
    with pytest.raises(ReportError, match="scored traffic"):
        build_report(traffic_reader, scoring_id=traffic_scoring)
    run_scoring = base_report.scoring.scoring_id
    with pytest.raises(ReportError, match="scored eval run"):
        build_traffic_report(reader, run_scoring)


def test_traffic_golden(report: TrafficReport, golden: Callable[[str, str], None]) -> None:
    scoring = report.scoring.model_copy(update={"scoring_id": "scoring-traffic"})
    golden("traffic.txt", render_traffic(report.model_copy(update={"scoring": scoring})))


def test_traffic_reads_the_same_through_json(
    report: TrafficReport, traffic: tuple[LocalReader, str]
) -> None:
    assert build_traffic_report(JsonReader(traffic[0]), traffic[1]) == report
