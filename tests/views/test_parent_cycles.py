"""Spans whose parents form a cycle are placed, with the cycle broken and flagged, not
left out of every view (issue 26, item 9)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.paths import DATA
from tests.support.views import dict_rows
from tracegrade.ingest import ingest_file
from tracegrade.store import SpanWriter

ADK_V2_A = DATA / "traces" / "adk_v2_a.otlp.jsonl"


def _spans(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for rs in request["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]


def _with_parent_cycle(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """adk_v2_a with its root, invoke_workflow, made the child of its own child
    invoke_agent: A's parent is B and B's parent is A, and no span of the trace is a root."""
    request = json.loads(ADK_V2_A.read_text())
    spans = {span["name"].split(" ")[0]: span for span in _spans(request)}
    workflow, agent = spans["invoke_workflow"], spans["invoke_agent"]
    assert agent["parentSpanId"] == workflow["spanId"]
    assert "parentSpanId" not in workflow
    workflow["parentSpanId"] = agent["spanId"]
    path = tmp_path / "cycle.otlp.jsonl"
    path.write_text(json.dumps(request) + "\n")
    return path, {"workflow": workflow["spanId"], "agent": agent["spanId"]}


def test_a_two_span_cycle_is_broken_at_its_smallest_id_and_flagged(
    tmp_path: Path, writer: SpanWriter
) -> None:
    path, ids = _with_parent_cycle(tmp_path)
    assert ingest_file(path, writer).bad_records == []
    broken_at = min(ids.values())
    tree = dict_rows(
        writer.connection,
        "SELECT span_id, depth, cycle_broken_at FROM span_tree ORDER BY depth, span_id",
    )
    assert len(tree) == 9
    assert {row["cycle_broken_at"] for row in tree} == {broken_at}
    assert tree[0] == {"span_id": broken_at, "depth": 0, "cycle_broken_at": broken_at}
    other = max(ids.values())
    assert next(row["depth"] for row in tree if row["span_id"] == other) == 1


def test_the_turn_of_a_cycle_keeps_its_calls(tmp_path: Path, writer: SpanWriter) -> None:
    path, _ = _with_parent_cycle(tmp_path)
    ingest_file(path, writer)
    turns = dict_rows(writer.connection, "SELECT tool_calls, llm_calls, user_text FROM turns")
    calls = dict_rows(writer.connection, "SELECT name, args FROM tool_calls ORDER BY seq")
    assert [c["name"] for c in calls] == ["get_weather", "get_time", "convert_temperature"]
    assert len(turns) == 1
    assert (turns[0]["tool_calls"], turns[0]["llm_calls"]) == (3, 3)


def test_a_span_that_is_its_own_parent_is_a_root(tmp_path: Path, writer: SpanWriter) -> None:
    request = json.loads(ADK_V2_A.read_text())
    root = next(s for s in _spans(request) if "parentSpanId" not in s)
    root["parentSpanId"] = root["spanId"]
    path = tmp_path / "self.otlp.jsonl"
    path.write_text(json.dumps(request) + "\n")
    ingest_file(path, writer)
    tree = dict_rows(writer.connection, "SELECT span_id, depth, cycle_broken_at FROM span_tree")
    assert len(tree) == 9
    assert {row["cycle_broken_at"] for row in tree} == {root["spanId"]}
    assert max(row["depth"] for row in tree) == 2


def test_sound_traces_have_no_cycle_flag(writer: SpanWriter) -> None:
    ingest_file(ADK_V2_A, writer)
    rows = dict_rows(writer.connection, "SELECT cycle_broken_at FROM span_tree")
    assert len(rows) == 9
    assert {row["cycle_broken_at"] for row in rows} == {None}


def test_spans_hanging_below_a_cycle_are_placed_under_it(
    tmp_path: Path, writer: SpanWriter
) -> None:
    """A cycle with a span below it whose id is smaller than any in the cycle: the cycle,
    not the span below, is where it is broken, and two cycles in one trace are two roots."""
    trace = "ab" * 16

    def span(span_id: str, parent: str) -> dict[str, Any]:
        return {
            "traceId": trace,
            "spanId": span_id,
            "parentSpanId": parent,
            "name": f"s{span_id[-1]}",
            "startTimeUnixNano": "1767225600000000000",
            "endTimeUnixNano": "1767225600000001000",
        }

    ids = {name: f"{number:016x}" for number, name in enumerate("xabcdy", start=1)}
    spans = [
        span(ids["x"], ids["a"]),  # below the cycle a -> b -> c -> a
        span(ids["a"], ids["c"]),
        span(ids["b"], ids["a"]),
        span(ids["c"], ids["b"]),
        span(ids["d"], ids["y"]),  # a second cycle, d <-> y
        span(ids["y"], ids["d"]),
    ]
    request = {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}
    path = tmp_path / "cycles.otlp.jsonl"
    path.write_text(json.dumps(request) + "\n")
    assert ingest_file(path, writer).bad_records == []
    tree = dict_rows(writer.connection, "SELECT span_id, depth, cycle_broken_at FROM span_tree")
    placed = {row["span_id"]: (row["depth"], row["cycle_broken_at"]) for row in tree}
    assert placed == {
        ids["a"]: (0, ids["a"]),
        ids["b"]: (1, ids["a"]),
        ids["c"]: (2, ids["a"]),
        ids["x"]: (1, ids["a"]),
        ids["d"]: (0, ids["d"]),
        ids["y"]: (1, ids["d"]),
    }
