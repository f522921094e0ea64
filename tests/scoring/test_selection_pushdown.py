"""A selection narrows the spans scoring normalises (since, sample and run id decide the
traces before the views run): the turns it scores, and their scores, are exactly those an
unrestricted scoring gives the same turns."""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.support.span_factory import adk_like_spans
from tests.support.tiers import costly
from tracegrade.capture.convert import RowBuilder
from tracegrade.scoring.criteria import parse_config
from tracegrade.scoring.engine import score
from tracegrade.scoring.metrics import available_metrics
from tracegrade.scoring.selected import drop_selected, select_traces
from tracegrade.scoring.selection import Selection
from tracegrade.store import SpanWriter
from tracegrade.store.archive import archive_pass
from tracegrade.store.archive_location import hot_spans, layer_archive, open_archive

SPECS = available_metrics()
CRITERIA = {
    "criteria": {
        "token_usage": {"max": 10_000},
        "latency": {"p95": 10_000},
        "tool_call_count": {"max": 5},
        "tool_error_rate": {"max": 0.5},
        "inference_call_count": {"max": 5},
    }
}
TURNS = 60
HOUR_NS = 3_600 * 10**9


@pytest.fixture
def traffic(writer: SpanWriter) -> duckdb.DuckDBPyConnection:
    """TURNS traces with random ids (as the sampler sees them), the first half started
    within the last hour, the rest in January."""
    writer.write(RowBuilder().rows(adk_like_spans(TURNS, random_ids=True)))
    connection = writer.connection
    recent = connection.execute(
        "SELECT trace_id FROM spans GROUP BY trace_id ORDER BY min(start_ns) LIMIT ?",
        [TURNS // 2],
    ).fetchall()
    shift = time.time_ns() - HOUR_NS // 2 - _first_start(connection)
    connection.execute(
        "UPDATE spans SET start_ns = start_ns + ?, end_ns = end_ns + ? "
        "WHERE trace_id IN (SELECT unnest(?::VARCHAR[]))",
        [shift, shift, [t for (t,) in recent]],
    )
    return connection


def _first_start(connection: duckdb.DuckDBPyConnection) -> int:
    return int(connection.execute("SELECT min(start_ns) FROM spans").fetchall()[0][0])


def _turn_scores(
    connection: duckdb.DuckDBPyConnection, selection: Selection
) -> dict[tuple[str, str], tuple[Any, ...]]:
    resolved = selection.resolved(connection)
    scoring_id = score(connection, resolved, parse_config(CRITERIA, SPECS), SPECS).scoring_id
    rows = connection.execute(
        "SELECT turn_id, metric, score, threshold, passed, status, detail::VARCHAR FROM scores "
        "WHERE scoring_id = ? AND level = 'turn'",
        [scoring_id],
    ).fetchall()
    return {(r[0], r[1]): r[2:] for r in rows}


def _selected_turns(connection: duckdb.DuckDBPyConnection, selection: Selection) -> set[str]:
    """What the selection picks from the `turns` view over every stored span."""
    predicate, params = selection.resolved(connection).predicate()
    query = f"SELECT turn_id FROM turns WHERE {predicate}"  # noqa: S608 — Selection's own SQL
    rows = connection.execute(query, params).fetchall()
    return {r[0] for r in rows}


@pytest.mark.parametrize(
    "selection",
    [
        Selection(sample=0.4),
        Selection(since=dt.timedelta(hours=2)),
        Selection(since=dt.timedelta(hours=2), sample=0.5),
        Selection(sample=0.6, where="tool_calls = 1 AND input_tokens > 0"),
    ],
    ids=["sample", "since", "since+sample", "sample+where"],
)
@costly
def test_a_selection_scores_its_turns_as_the_unrestricted_scoring_does(
    traffic: duckdb.DuckDBPyConnection, selection: Selection
) -> None:
    everything = _turn_scores(traffic, Selection())
    selected = _turn_scores(traffic, selection)
    expected = _selected_turns(traffic, selection)
    assert 0 < len(expected) < TURNS
    assert {turn for turn, _ in selected} == expected
    assert selected == {key: row for key, row in everything.items() if key[0] in expected}
    metrics = {metric for _, metric in selected}
    assert metrics >= set(CRITERIA["criteria"])
    assert len(selected) == len(expected) * len(metrics)  # every metric on every turn


@costly
def test_a_selection_reads_hot_and_archived_traces_through_the_spans_view(
    traffic: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    """The January half moves to the archive: each selection scores the same turns as it
    did when every span was hot (sampled traces lie in both halves)."""
    selections = [Selection(), Selection(sample=0.4), Selection(sample=0.6, where="tool_calls = 1")]
    # Opened first, as serve does: a `where` locks the connection's file access down.
    open_archive(traffic, tmp_path / "archive", "s0")
    before = [_turn_scores(traffic, selection) for selection in selections]
    moved = archive_pass(traffic, retain_days=1).spans
    assert layer_archive(traffic)
    ((hot,),) = traffic.execute(f"SELECT count(*) FROM {hot_spans(traffic)}").fetchall()  # noqa: S608 — the catalog's name
    assert moved > 0
    assert hot > 0
    after = [_turn_scores(traffic, selection) for selection in selections]
    assert after == before
    assert len(before[0]) > len(before[1]) > 0


def test_only_the_selected_traces_are_normalised(traffic: duckdb.DuckDBPyConnection) -> None:
    selection = Selection(since=dt.timedelta(hours=2), sample=0.5)
    select_traces(traffic, selection.trace_predicate())
    normalised = traffic.execute(
        "SELECT trace_id, count(*) FROM scoring_agent_spans GROUP BY trace_id"
    ).fetchall()
    drop_selected(traffic)
    predicate, params = selection.predicate()
    spans_of_selected = traffic.execute(
        "SELECT trace_id, count(*) FROM spans WHERE trace_id IN "  # noqa: S608 — Selection's own SQL
        f"(SELECT trace_id FROM turns WHERE {predicate}) GROUP BY trace_id",
        params,
    ).fetchall()
    assert 0 < len(normalised) < TURNS // 2
    assert sorted(normalised) == sorted(spans_of_selected)


def test_no_selection_leaves_the_traces_unnarrowed() -> None:
    assert Selection().trace_predicate() is None
    assert Selection(where="tool_calls > 0").trace_predicate() is None


def test_a_resolved_where_narrows_to_the_traces_of_its_turns(
    traffic: duckdb.DuckDBPyConnection,
) -> None:
    selection = Selection(since=dt.timedelta(hours=2), where="tool_calls = 1").resolved(traffic)
    assert selection.turn_ids
    traces = selection.trace_predicate()
    assert traces is not None
    query = f"SELECT DISTINCT trace_id FROM spans WHERE {traces[0]}"  # noqa: S608 — Selection's own SQL
    kept = {row[0] for row in traffic.execute(query, traces[1]).fetchall()}
    assert kept == {turn.split("-")[0] for turn in selection.turn_ids}
