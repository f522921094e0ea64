"""Scoring stored runs: criteria, repeat policies, errors apart from failures, re-scoring."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import DATA
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.exit_codes import ExitCode
from tracegrade.harness import RunOptions, load_agent, run_eval
from tracegrade.scoring.criteria import parse_config
from tracegrade.scoring.engine import score
from tracegrade.scoring.metrics import available_metrics
from tracegrade.scoring.selection import Selection
from tracegrade.scoring.verdict import ScoringResult
from tracegrade.store import SpanWriter

SPECS = available_metrics()
SHOP = DATA / "evalsets" / "harness" / "shop.evalset.json"
FLAKY = DATA / "evalsets" / "harness" / "flaky.evalset.json"
FLAKY_AGENT = "tests.scoring.flaky_agent:root_agent"


def _run(captured: BlockingSpanProcessor, evalset: Path, agent: str, **options: Any) -> str:
    load_agent(FLAKY_AGENT).model.reset()  # type: ignore[attr-defined]  # its script is shared by every run
    result = run_eval(RunOptions(eval_sets=[str(evalset)], agent=agent, **options))
    assert captured.force_flush()
    return result.run_id


def _score(
    writer: SpanWriter,
    run_id: str,
    config: dict[str, Any] | None = None,
    metrics: list[Path] | None = None,
) -> ScoringResult:
    specs = available_metrics(metrics or [])
    return score(writer.connection, Selection(run_id=run_id), parse_config(config, specs), specs)


def _verdicts(result: ScoringResult) -> dict[str, str]:
    return {c.case_id: c.verdict for c in result.cases}


@pytest.fixture
def shop_run(captured: BlockingSpanProcessor) -> str:
    return _run(captured, SHOP, "tests.harness.shop_agent.agent:root_agent")


def test_adk_defaults_fail_wrong_answers_and_report_crashes_apart(
    writer: SpanWriter, shop_run: str
) -> None:
    result = _score(writer, shop_run)
    assert _verdicts(result) == {
        "model_crash": "error",
        "pear_only": "failed",
        "tool_crash": "error",
        "transfer": "passed",
        "two_turns_with_state": "passed",
    }
    assert result.error_rate == pytest.approx(2 / 5)
    assert result.exit_code == ExitCode.ERRORS_OVER_LIMIT
    failing = next(c for c in result.cases if c.case_id == "pear_only")
    assert failing.failed_metrics == ["response_match_score", "tool_trajectory_avg_score"]


@costly
def test_error_budget_separates_the_gates(writer: SpanWriter, shop_run: str) -> None:
    tolerant = {
        "criteria": {"tool_trajectory_avg_score": 1.0},
        "tracegrade": {"max_error_rate": 0.5},
    }
    assert _score(writer, shop_run, tolerant).exit_code == ExitCode.GATE_FAILED
    lenient = {
        "criteria": {
            "tool_trajectory_avg_score": {
                "threshold": 1.0,
                "match_type": "IN_ORDER",
                "ignore_args": True,
            }
        },
        "tracegrade": {"max_error_rate": 0.5},
    }
    result = _score(writer, shop_run, lenient)
    assert _verdicts(result)["pear_only"] == "passed"
    assert result.exit_code == ExitCode.OK


@costly
def test_rescoring_a_stored_run_runs_no_agent(writer: SpanWriter, shop_run: str) -> None:
    spans_before = writer.connection.execute("SELECT count(*) FROM spans").fetchall()
    first = _score(writer, shop_run)
    second = _score(writer, shop_run, {"criteria": {"response_match_score": 0.4}})
    assert writer.connection.execute("SELECT count(*) FROM spans").fetchall() == spans_before
    assert first.scoring_id != second.scoring_id
    rows = writer.connection.execute(
        "SELECT scoring_id, count(*) FROM case_results WHERE run_id = ? GROUP BY ALL", [shop_run]
    ).fetchall()
    assert sorted(n for _, n in rows) == [5, 5]
    assert _verdicts(second)["pear_only"] == "passed"  # 0.5 mean response match >= 0.4


@pytest.mark.parametrize(
    ("policy", "verdict"),
    [
        ("all", "failed"),
        ("majority", "passed"),
        ({"at_least": 1}, "passed"),
        ({"at_least": 3}, "failed"),
    ],
)
def test_repeat_policy_decides_the_case(
    captured: BlockingSpanProcessor, writer: SpanWriter, policy: Any, verdict: str
) -> None:
    run_id = _run(captured, FLAKY, FLAKY_AGENT, repeats=3)
    result = _score(
        writer,
        run_id,
        {"criteria": {"tool_trajectory_avg_score": 1.0}, "tracegrade": {"repeat_policy": policy}},
    )
    (case,) = result.cases
    assert (case.passed_repeats, case.failed_repeats, case.flaky, case.pass_at_k) == (
        2,
        1,
        True,
        True,
    )
    assert case.verdict == verdict


@costly
def test_budgets_gate_per_turn_and_per_run(
    captured: BlockingSpanProcessor, writer: SpanWriter
) -> None:
    run_id = _run(captured, FLAKY, FLAKY_AGENT)  # 2350 tokens in its one turn
    within = _score(writer, run_id, {"criteria": {"token_usage": 5000}})
    over = _score(writer, run_id, {"criteria": {"token_usage": {"max": 2000}}})
    run_level = _score(writer, run_id, {"criteria": {"token_usage": {"p95": 1000}}})
    assert within.exit_code == ExitCode.OK
    assert over.exit_code == ExitCode.GATE_FAILED
    assert over.cases[0].failed_metrics == ["token_usage"]
    assert run_level.failed_run_metrics == ["token_usage"]
    assert run_level.exit_code == ExitCode.GATE_FAILED


def test_cost_is_priced_from_the_table_or_the_config(
    captured: BlockingSpanProcessor, writer: SpanWriter
) -> None:
    run_id = _run(captured, FLAKY, FLAKY_AGENT)
    _score(
        writer,
        run_id,
        {"tracegrade": {"prices": {"gemini-2.5-flash": {"input": 1.0, "output": 10.0}}}},
    )
    (cost,) = writer.connection.execute(
        "SELECT score FROM scores WHERE metric = 'cost_usd' AND level = 'turn'"
    ).fetchall()
    assert cost[0] == pytest.approx((2200 * 1.0 + 150 * 10.0) / 1e6)


def test_a_custom_metric_is_a_sql_file(
    captured: BlockingSpanProcessor, writer: SpanWriter, tmp_path: Path
) -> None:
    (tmp_path / "mentions_city.sql").write_text(
        "-- metric: mentions_city\n-- better: higher\n-- needs: expected\n"
        "-- One row per turn: 1.0 when the final response names Paris.\n"
        "SELECT turn_id, (final_text LIKE '%Paris%')::DOUBLE AS score, NULL::JSON AS detail\n"
        "FROM scored_turns\n"
    )
    run_id = _run(captured, FLAKY, FLAKY_AGENT, repeats=2)
    result = _score(
        writer,
        run_id,
        {"criteria": {"mentions_city": 1.0}, "tracegrade": {"repeat_policy": {"at_least": 2}}},
        metrics=[tmp_path],
    )
    assert (result.cases[0].passed_repeats, result.cases[0].failed_repeats) == (1, 1)
    assert result.cases[0].verdict == "failed"


@costly
def test_traffic_sample_is_decided_by_trace_id_like_the_otel_sampler(writer: SpanWriter) -> None:
    from opentelemetry.sdk.trace.sampling import Decision, TraceIdRatioBased

    from tests.support.span_factory import adk_like_spans
    from tracegrade.capture.convert import RowBuilder

    writer.write(RowBuilder().rows(adk_like_spans(200)))
    specs = available_metrics()
    config = parse_config({"criteria": {"token_usage": 10_000}}, specs)
    result = score(writer.connection, Selection(sample=0.3), config, specs)
    scored = {
        r[0] for r in writer.connection.execute("SELECT trace_id FROM scored_turns").fetchall()
    }
    all_traces = {r[0] for r in writer.connection.execute("SELECT trace_id FROM turns").fetchall()}
    sampler = TraceIdRatioBased(0.3)
    sampled = Decision.RECORD_AND_SAMPLE  # what the sampler decides for a trace it keeps
    expected = {
        t for t in all_traces if sampler.should_sample(None, int(t, 16), "x").decision == sampled
    }
    assert scored == expected
    assert 0 < len(scored) < len(all_traces)
    assert result.turns == len(scored)
    assert result.exit_code == ExitCode.OK
