"""Tool calls checked against the schemas their model was given, on real ADK agents.

Each scripted model makes valid and invalid calls through google-adk 2.13; the spans go
through the real exporter into DuckDB, and `tool_calls.valid` / `validity_errors`, then the
`tool_call_validity` metric, must name each problem: with content capture on, with it off,
across agents with different tools, through an AgentTool, for a tool without parameters, and
for an eval run whose spans carry no tool definitions (ADK schema v1), where the run's own
record of its agents' tools is used.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.support.adk_run import adk_settings, run_scenario
from tests.support.scenarios import Scenario
from tests.support.tool_agents import (
    INVALID_CALLS,
    VALID_CALLS,
    pipeline_with_agent_tool,
    tools_agent,
)
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.evalset import load_eval_sets
from tracegrade.harness import RunOptions
from tracegrade.harness.run import RunPlan, execute
from tracegrade.scoring import Selection, available_metrics, parse_config, score
from tracegrade.store import SpanWriter

ALL_CALLS = VALID_CALLS + [c for c, _ in INVALID_CALLS]


def _calls(connection: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    cursor = connection.execute(
        "SELECT name, args, agent_name, in_agent_tool, tool_offered, tool_schema, valid, "
        "validity_errors FROM tool_calls ORDER BY start_ns"
    )
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _run(build: Any, content: bool, captured: BlockingSpanProcessor, schema: str = "2") -> None:
    with adk_settings(schema, content):
        run_scenario(Scenario("tools", build, ("Go",)))
    assert captured.force_flush()


def test_every_problem_is_named_with_its_argument(
    writer: SpanWriter, captured: BlockingSpanProcessor
) -> None:
    _run(lambda: tools_agent(ALL_CALLS), True, captured)
    calls = _calls(writer.connection)
    assert [c["name"] for c in calls] == [c["name"] for c in ALL_CALLS]

    for found in calls[: len(VALID_CALLS)]:
        assert (found["name"], found["valid"], found["validity_errors"]) == (
            found["name"],
            True,
            [],
        )
    for found, (_, (argument, kind)) in zip(calls[len(VALID_CALLS) :], INVALID_CALLS, strict=True):
        assert found["valid"] is False, found
        assert (argument, kind) in [(e["argument"], e["kind"]) for e in found["validity_errors"]]
        assert all(e["message"] for e in found["validity_errors"])


def test_the_openapi_style_schema_is_what_the_spans_hold_and_is_converted(
    writer: SpanWriter, captured: BlockingSpanProcessor
) -> None:
    _run(lambda: tools_agent(VALID_CALLS), True, captured)
    (schema,) = {c["tool_schema"] for c in _calls(writer.connection) if c["name"] == "dim_lights"}
    # As ADK dumped google-genai's Schema: upper-case types, snake_case keywords.
    assert json.loads(schema)["properties"]["level"]["type"] == "INTEGER"
    assert json.loads(schema)["properties"]["note"] == {
        "max_length": 5,
        "nullable": True,
        "type": "STRING",
    }
    (no_params,) = [c for c in _calls(writer.connection) if c["name"] == "current_time"]
    assert (no_params["tool_offered"], no_params["tool_schema"]) == (True, None)


def test_without_content_capture_only_the_unknown_tool_is_judged(
    writer: SpanWriter, captured: BlockingSpanProcessor
) -> None:
    _run(lambda: tools_agent(ALL_CALLS), False, captured)
    calls = _calls(writer.connection)
    unknown = [c for c in calls if c["name"] == "launch_rocket"]
    others = [c for c in calls if c["name"] != "launch_rocket"]
    assert [c["valid"] for c in unknown] == [False]
    assert {c["valid"] for c in others} == {None}
    assert {c["validity_errors"][0]["kind"] for c in others} == {"not_checked"}
    assert "not captured" in others[0]["validity_errors"][0]["message"]


def test_each_agent_is_held_to_its_own_tools_and_agent_tools_are_checked(
    writer: SpanWriter, captured: BlockingSpanProcessor
) -> None:
    _run(pipeline_with_agent_tool, True, captured)
    found = {(c["agent_name"], c["name"]): c for c in _calls(writer.connection)}
    assert found[("heating", "set_temperature")]["valid"] is True
    # The booking agent's model was never given set_temperature.
    stray = found[("booking", "set_temperature")]
    assert (stray["valid"], stray["validity_errors"][0]["kind"]) == (False, "unknown_tool")
    assert found[("booking", "helper")]["valid"] is True  # AgentTool: {"request": string}
    inner = found[("helper", "current_time")]
    assert (inner["in_agent_tool"], inner["valid"]) == (True, True)


def _score_traffic(connection: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    specs = available_metrics()
    result = score(connection, Selection(), parse_config({"criteria": {}}, specs), specs)
    score_value, detail = connection.execute(
        "SELECT score, detail FROM scores WHERE scoring_id = ? AND level = 'turn' "
        "AND metric = 'tool_call_validity'",
        [result.scoring_id],
    ).fetchone() or (None, None)
    return {"score": score_value, "detail": json.loads(detail) if detail else None}


def test_the_metric_is_the_share_of_checked_calls_that_are_valid(
    writer: SpanWriter, captured: BlockingSpanProcessor
) -> None:
    _run(lambda: tools_agent(ALL_CALLS), True, captured)
    scored = _score_traffic(writer.connection)
    assert scored["score"] == pytest.approx(len(VALID_CALLS) / len(ALL_CALLS))
    assert scored["detail"]["checked"] == len(ALL_CALLS)
    first = scored["detail"]["invalid"][0]
    assert (first["seq"], first["name"]) == (len(VALID_CALLS) + 1, "set_temperature")
    assert first["errors"][0]["kind"] == "wrong_type"


def test_not_evaluated_with_the_reason_when_nothing_could_be_checked(
    writer: SpanWriter, captured: BlockingSpanProcessor
) -> None:
    _run(lambda: tools_agent(VALID_CALLS), False, captured)
    scored = _score_traffic(writer.connection)
    assert scored["score"] is None
    assert scored["detail"]["checked"] == 0
    assert "arguments were not captured" in scored["detail"]["reason"]


def test_an_eval_run_checks_against_its_recorded_tools_when_spans_lack_them(
    tmp_path: Path, writer: SpanWriter, captured: BlockingSpanProcessor
) -> None:
    evalset = tmp_path / "tools.evalset.json"
    evalset.write_text(
        json.dumps(
            {
                "eval_set_id": "tools",
                "eval_cases": [
                    {
                        "eval_id": "go",
                        "conversation": [
                            {"user_content": {"role": "user", "parts": [{"text": "Go"}]}}
                        ],
                    }
                ],
            }
        )
    )
    calls = [VALID_CALLS[0], INVALID_CALLS[0][0]]
    eval_sets = load_eval_sets([str(evalset)])
    options = RunOptions(eval_sets=[str(evalset)], agent="tools_agent")
    plan = RunPlan("run-1", options, eval_sets, tools_agent(calls), list(eval_sets[0].cases), [])
    execute(plan)
    assert captured.force_flush()
    # As spans from an instrumentation that records no definitions (google-genai's own
    # instrumentor drops them, reference/adk-spans.md §13; it cannot be installed beside
    # ADK 2.13's OTel pin here): the attribute removed from the stored spans.
    writer.connection.execute(
        "UPDATE spans SET attributes = json_merge_patch(attributes, "
        "'{\"gen_ai.tool.definitions\": null}')"
    )

    found = _calls(writer.connection)
    assert [(c["name"], c["tool_offered"], c["valid"]) for c in found] == [
        ("set_temperature", True, True),
        ("set_temperature", True, False),
    ]
    assert found[1]["validity_errors"][0]["argument"] == "degrees"
    recorded = writer.connection.execute(
        "SELECT agent_name, name, source FROM tool_definitions ORDER BY name"
    ).fetchall()
    assert ("tools_agent", "book_table", "eval_run") in recorded


def test_adk_v1_spans_give_the_definitions_of_the_model_request(
    writer: SpanWriter, captured: BlockingSpanProcessor
) -> None:
    _run(lambda: tools_agent([VALID_CALLS[0], INVALID_CALLS[0][0]]), True, captured, schema="1")
    found = _calls(writer.connection)
    assert [(c["tool_offered"], c["valid"]) for c in found] == [(True, True), (True, False)]
    assert found[1]["validity_errors"][0]["kind"] == "wrong_type"
