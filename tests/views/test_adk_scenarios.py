"""The views against ADK eval's own reading of the same runs (the oracle).

Every scenario of reference/adk-spans.md runs through a real google-adk agent with a
scripted model, in both telemetry schemas, with content capture on and off. For each
turn the trajectory, texts and counts in the views must equal what ADK's eval code
derives from the session's events, except where the reference documents a difference.
"""

from __future__ import annotations

import json
from typing import Any

import duckdb
import pytest

from tests.support.adk_run import OracleTurn, adk_settings, oracle, run_scenario
from tests.support.scenarios import SCENARIOS
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.store import SpanWriter

# ADK eval counts a model call that raised, or an error response without content, as no
# call at all; a span exists for each (reference/adk-spans.md §11). Tokens the error
# response reported are on its span too.
SPAN_COUNTS_DIFFER = {
    "model_raises": {"inference_call_count"},
    "error_response": {"inference_call_count", "token_total"},
}

MODES = [(schema, content) for schema in ("2", "1") for content in (True, False)]


def _run(
    name: str, schema: str, content: bool, captured: BlockingSpanProcessor
) -> list[OracleTurn]:
    with adk_settings(schema, content):
        events = run_scenario(SCENARIOS[name])
    assert captured.force_flush()
    return oracle(events)


def _turns(connection: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    cursor = connection.execute(
        """
        SELECT t.*, tr.calls
        FROM turns t JOIN trajectories tr USING (turn_id)
        ORDER BY t.start_ns
        """
    )
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


@pytest.mark.parametrize(
    ("schema", "content"), MODES, ids=[f"v{s}-{'content' if c else 'nocontent'}" for s, c in MODES]
)
@pytest.mark.parametrize("name", sorted(SCENARIOS))
@costly
def test_views_agree_with_adk_eval(
    name: str, schema: str, content: bool, writer: SpanWriter, captured: BlockingSpanProcessor
) -> None:
    expected = _run(name, schema, content, captured)
    turns = _turns(writer.connection)

    assert len(turns) == len(expected)
    for ours, adk in zip(turns, expected, strict=True):
        assert [c["name"] for c in ours["calls"]] == [c["name"] for c in adk.calls]
        if content:
            assert [json.loads(c["args"]) for c in ours["calls"]] == [c["args"] for c in adk.calls]
            assert ours["user_text"] == adk.user_text
            assert ours["final_text"] == adk.final_text
            assert ours["args_captured"] in (True, None)
        else:
            assert all(c["args"] is None for c in ours["calls"])
            assert ours["args_captured"] in (False, None)
            assert ours["user_text"] is None
            assert ours["final_text"] is None
        assert ours["tool_calls"] == adk.tool_call_count
        differs = SPAN_COUNTS_DIFFER.get(name, set())
        if "inference_call_count" not in differs:
            assert ours["llm_calls"] == adk.inference_call_count
        if "token_total" not in differs:
            assert ours["total_tokens"] == adk.token_total
        assert ours["session_id"] == "session-1"
        assert ours["convention"] == f"adk_v{schema}"


def test_documented_differences_are_what_the_spans_say(
    writer: SpanWriter, captured: BlockingSpanProcessor
) -> None:
    _run("model_raises", "2", True, captured)
    _run("error_response", "2", True, captured)
    rows = writer.connection.execute(
        "SELECT root_agent, llm_calls, llm_errors, total_tokens, is_error "
        "FROM turns ORDER BY start_ns"
    ).fetchall()
    # model_raises: one call answered, one raised; error_response: one call, 30 + 3 tokens.
    assert rows == [("flaky_agent", 2, 1, 145, True), ("safe_agent", 1, 0, 33, False)]


@pytest.mark.parametrize("schema", ["2", "1"])
def test_one_turn_per_invocation_with_its_ids(
    schema: str, writer: SpanWriter, captured: BlockingSpanProcessor
) -> None:
    _run("multi_turn", schema, True, captured)
    rows = writer.connection.execute(
        "SELECT trace_id, session_id, invocation_id, root_agent FROM turns ORDER BY start_ns"
    ).fetchall()
    assert len(rows) == 2
    assert rows[0][0] != rows[1][0]
    assert {r[1] for r in rows} == {"session-1"}
    assert all(r[2].startswith("e-") for r in rows)
    assert rows[0][2] != rows[1][2]
    assert {r[3] for r in rows} == {"weather_agent"}


@costly
def test_tool_errors_are_flagged_by_kind(
    writer: SpanWriter, captured: BlockingSpanProcessor
) -> None:
    _run("tool_errors", "2", True, captured)
    _run("tool_raises", "2", True, captured)
    rows = writer.connection.execute(
        """
        SELECT c.name, c.is_error, c.error_kind, c.error_type, t.is_error, t.error_type
        FROM tool_calls c JOIN turns t USING (turn_id)
        ORDER BY t.start_ns, c.seq
        """
    ).fetchall()
    assert rows == [
        ("lookup_order", True, "returned_error", "TOOL_ERROR", False, None),
        ("no_such_tool", True, "unknown_tool", "ValueError", False, None),
        ("lookup_order", True, "returned_error", "TOOL_ERROR", True, "ValueError"),
        ("charge_card", True, "raised", "ValueError", True, "ValueError"),
    ]
    tool_errors = writer.connection.execute(
        "SELECT tool_errors FROM turns ORDER BY start_ns"
    ).fetchall()
    assert tool_errors == [(2,), (2,)]


def test_agent_tool_internals_are_kept_apart(
    writer: SpanWriter, captured: BlockingSpanProcessor
) -> None:
    _run("agent_tool", "2", True, captured)
    rows = writer.connection.execute(
        "SELECT name, seq, in_agent_tool, agent_name FROM tool_calls ORDER BY start_ns"
    ).fetchall()
    assert rows == [
        ("helper_agent", 1, False, "main_agent"),
        ("search", None, True, "helper_agent"),
    ]
    inner_llm = writer.connection.execute(
        "SELECT count(*) FILTER (in_agent_tool), count(*) FILTER (NOT in_agent_tool) FROM llm_calls"
    ).fetchone()
    assert inner_llm == (2, 2)


@pytest.mark.parametrize("name", ["sequential", "parallel_agent", "transfer"])
def test_sub_agent_calls_are_attributed_to_their_agent(
    name: str, writer: SpanWriter, captured: BlockingSpanProcessor
) -> None:
    _run(name, "2", True, captured)
    rows = writer.connection.execute(
        "SELECT name, agent_name, agent_path FROM tool_calls WHERE seq IS NOT NULL ORDER BY name"
    ).fetchall()
    expected = {
        "sequential": [
            ("format_text", "writer", "pipeline.writer"),
            ("search", "researcher", "pipeline.researcher"),
        ],
        "parallel_agent": [
            ("get_news", "news_branch", "fanout.news_branch"),
            ("get_weather", "weather_branch", "fanout.weather_branch"),
        ],
        "transfer": [
            ("get_invoice", "invoice_agent", "invoice_agent"),
            ("transfer_to_agent", "router", "router"),
        ],
    }
    assert rows == expected[name]


def test_calls_from_one_model_response_share_it(
    writer: SpanWriter, captured: BlockingSpanProcessor
) -> None:
    _run("parallel_calls", "2", True, captured)
    groups = writer.connection.execute(
        "SELECT list(name ORDER BY seq) FROM tool_calls GROUP BY response_span_id ORDER BY min(seq)"
    ).fetchall()
    assert groups == [(["get_weather", "get_time"],), (["convert_temperature"],)]


def test_tokens_absent_are_null_not_zero(
    writer: SpanWriter, captured: BlockingSpanProcessor
) -> None:
    _run("parallel_calls", "2", True, captured)
    rows = writer.connection.execute(
        "SELECT seq, input_tokens, output_tokens, reasoning_tokens, cached_tokens "
        "FROM llm_calls ORDER BY seq"
    ).fetchall()
    # Output includes thoughts (18 + 7); cached is reported only by the second call.
    assert rows == [(1, 120, 25, 7, None), (2, 170, 17, 5, 64), (3, 210, 21, 0, None)]


@costly
def test_parallel_branches_share_a_group(
    writer: SpanWriter, captured: BlockingSpanProcessor
) -> None:
    _run("parallel_agent", "2", True, captured)
    _run("sequential", "2", True, captured)
    groups = writer.connection.execute(
        """
        SELECT t.root_agent, count(DISTINCT c.parallel_group)
        FROM tool_calls c JOIN turns t USING (turn_id) GROUP BY ALL ORDER BY ALL
        """
    ).fetchall()
    assert groups == [("fanout", 1), ("pipeline", 2)]
