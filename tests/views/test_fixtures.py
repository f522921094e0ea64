"""Recorded traces of every convention, loaded through the real file path, against ADK eval.

The fixtures in tests/data/traces were captured from real runs (see its README); each
`.expected.json` holds what ADK's eval code derived from the same session's events.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.paths import DATA
from tests.support.tiers import costly
from tracegrade.ingest import ingest_file
from tracegrade.store import SpanWriter

pytestmark = costly  # every test here: see tests.support.tiers.costly

TRACES = DATA / "traces"
FIXTURES = sorted(p.name.removesuffix(".otlp.jsonl") for p in TRACES.glob("*.otlp.jsonl"))

# OpenInference with ADK schema v2 folds every model call of an agent onto one span and
# overwrites the counts (reference/adk-spans.md §12): per-call LLM data is lost, and the
# views say NULL rather than the last call's numbers.
LLM_DATA_LOST = {"openinference_v2_a", "openinference_v2_b", "openinference_v2_c"}


def _expected(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((TRACES / f"{name}.expected.json").read_text())
    return data


def _turns(writer: SpanWriter) -> list[dict[str, Any]]:
    cursor = writer.connection.execute(
        "SELECT t.*, tr.calls FROM turns t JOIN trajectories tr USING (turn_id) ORDER BY t.start_ns"
    )
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


@pytest.mark.parametrize("name", FIXTURES)
def test_fixture_turns_match_adk_eval(name: str, writer: SpanWriter) -> None:
    report = ingest_file(TRACES / f"{name}.otlp.jsonl", writer)
    assert report.bad_records == []
    expected = _expected(name)
    turns = _turns(writer)

    assert len(turns) == len(expected["turns"])
    for ours, adk in zip(turns, expected["turns"], strict=True):
        assert [{"name": c["name"], "args": json.loads(c["args"])} for c in ours["calls"]] == adk[
            "tool_trajectory"
        ]
        assert ours["user_text"] == adk["user_text"]
        assert ours["final_text"] == adk["final_response"]
        assert ours["tool_calls"] == adk["tool_call_count"]
        assert ours["session_id"] == expected["session_id"]
        if name in LLM_DATA_LOST:
            assert ours["llm_calls"] is None
            assert ours["llm_errors"] is None
            for tokens in ("input_tokens", "output_tokens", "reasoning_tokens", "cached_tokens"):
                assert ours[tokens] is None
            assert ours["total_tokens"] is None
        else:
            assert ours["llm_calls"] == adk["inference_call_count"]
            assert ours["total_tokens"] == (adk["token_usage"] or {}).get("total")


def test_counts_are_known_or_null(writer: SpanWriter) -> None:
    """Across every recorded convention, each count and token sum the views report is the
    producer's own (ADK eval's reading, or what the loop did), or NULL where the spans
    cannot say it: never a number that is wrong."""
    for name in FIXTURES:
        assert ingest_file(TRACES / f"{name}.otlp.jsonl", writer).bad_records == []
    turns = _turns(writer)
    by_session: dict[str, list[dict[str, Any]]] = {}
    for turn in turns:
        by_session.setdefault(turn["session_id"], []).append(turn)
    unknown = set()
    for name in FIXTURES:
        expected = _expected(name)
        ours = by_session.pop(expected["session_id"])
        assert len(ours) == len(expected["turns"])
        for turn, adk in zip(ours, expected["turns"], strict=True):
            assert turn["convention"] != "other"
            usage = adk["token_usage"] or {}
            reported = {
                "llm_calls": (turn["llm_calls"], adk["inference_call_count"]),
                "tool_calls": (turn["tool_calls"], adk["tool_call_count"]),
                "input_tokens": (turn["input_tokens"], usage.get("input")),
                "output_tokens": (turn["output_tokens"], usage.get("output")),
                "total_tokens": (turn["total_tokens"], usage.get("total")),
            }
            for column, (value, truth) in reported.items():
                if value is None:
                    unknown.add((name, column))
                else:
                    assert value == truth, (name, column)
    assert by_session == {}
    # NULL only where the spans cannot say it.
    assert {name for name, _ in unknown} == LLM_DATA_LOST
