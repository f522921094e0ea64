"""One online scoring pass over a real DuckDB file: a trace is scored once its root span is
stored, each turn once per rule version (a late span brings its trace back, not its turn),
and the cursor moves past what was decided."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from opentelemetry.sdk.trace import ReadableSpan

from tests.support.new_database import new_database
from tests.support.span_factory import adk_like_spans
from tests.support.tiers import costly
from tracegrade.capture import DuckDBSpanExporter
from tracegrade.errors import ConfigError
from tracegrade.scoring.judging.settings import JudgeSettings
from tracegrade.scoring.metrics import available_metrics
from tracegrade.scoring.online import activate, check_where, horizon_us, score_pass
from tracegrade.scoring.rules import Rule, parse_rule
from tracegrade.scoring.selection import Selection
from tracegrade.store import SpanWriter

SPECS = available_metrics()


class _Exporter:
    """Stores what it is given at once (the exporter batches)."""

    def __init__(self, writer: SpanWriter) -> None:
        self._exporter = DuckDBSpanExporter(writer=writer)

    def export(self, spans: list[ReadableSpan]) -> None:
        self._exporter.export(spans)
        assert self._exporter.force_flush()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[tuple[SpanWriter, _Exporter]]:
    writer = SpanWriter.open(new_database(tmp_path / "online.duckdb"))
    yield writer, _Exporter(writer)
    writer.close()


def _rule(**changes: object) -> Rule:
    raw = {"name": "budgets", "criteria": {"tool_error_rate": {"max": 0.5}}, **changes}
    return parse_rule(raw, SPECS, "test rule")


def _pass(connection: duckdb.DuckDBPyConnection, rule: Rule) -> list[str]:
    done = score_pass(connection, rule, horizon_us(connection, 0), SPECS, JudgeSettings())
    return sorted(t.split("-")[0] for t in _turns_of(connection, done.scoring_id))


def _turns_of(connection: duckdb.DuckDBPyConnection, scoring_id: str | None) -> list[str]:
    rows = connection.execute(
        "SELECT turn_id FROM online_scored WHERE scoring_id = ?", [scoring_id]
    ).fetchall()
    return [row[0] for row in rows]


@costly
def test_a_trace_is_scored_once_its_root_is_stored_and_never_again(
    store: tuple[SpanWriter, _Exporter],
) -> None:
    writer, exporter = store
    connection = writer.connection.cursor()
    rule = _rule()
    activate(connection, rule)
    spans = adk_like_spans(3, seed=5)
    traces = sorted({f"{s.context.trace_id:032x}" for s in spans})
    partial = f"{spans[0].context.trace_id:032x}"
    root = next(s for s in spans if s.parent is None and f"{s.context.trace_id:032x}" == partial)
    exporter.export([s for s in spans if s is not root])

    first = _pass(connection, rule)
    exporter.export([root])
    second = _pass(connection, rule)
    connection.execute(  # a late span of a scored trace
        "INSERT INTO spans SELECT * REPLACE ('00000000000fffff' AS span_id, now() AS ingested_at) "
        "FROM spans WHERE trace_id = ? AND parent_span_id IS NOT NULL LIMIT 1",
        [traces[-1] if traces[-1] != partial else traces[0]],
    )
    third = _pass(connection, rule)

    assert first == sorted(t for t in traces if t != partial)
    assert second == [partial]
    assert third == []
    ledger = connection.execute(
        "SELECT count(*), count(DISTINCT turn_id) FROM online_scored"
    ).fetchall()
    assert ledger == [(3, 3)]
    root_turn = f"{partial}-{root.context.span_id:016x}"
    assert connection.execute(
        "SELECT count(*) FROM online_scored WHERE turn_id = ?", [root_turn]
    ).fetchall() == [(1,)]
    selections = connection.execute("SELECT DISTINCT selection FROM scorings ORDER BY 1").fetchall()
    described = [json.loads(row[0]) for row in selections]
    assert {(d["rule"], d["rule_version"]) for d in described} == {("budgets", rule.version)}


@costly
def test_a_new_version_starts_after_its_activation_unless_it_backfills(
    store: tuple[SpanWriter, _Exporter],
) -> None:
    writer, exporter = store
    connection = writer.connection.cursor()
    exporter.export(adk_like_spans(2, seed=6))  # before any rule
    changed, backfilling = _rule(sample=0.999), _rule(sample=0.998, backfill=True)
    activate(connection, changed)
    activate(connection, backfilling)
    exporter.export(adk_like_spans(1, seed=7))

    assert len(_pass(connection, changed)) == 1
    assert len(_pass(connection, backfilling)) == 3
    assert _pass(connection, backfilling) == []


def test_a_trace_continuing_a_callers_context_is_rooted_at_its_server_span(
    store: tuple[SpanWriter, _Exporter],
) -> None:
    """The app's root span has a parent in the caller, never sent here: a server span is
    taken for the root; a parentless internal span, for a trace still arriving."""
    writer, exporter = store
    connection = writer.connection.cursor()
    rule = _rule(backfill=True)
    activate(connection, rule)
    exporter.export(adk_like_spans(2, seed=8))
    found = connection.execute("SELECT DISTINCT trace_id FROM spans ORDER BY 1").fetchall()
    traces = [row[0] for row in found]
    for trace, kind in zip(traces, ("SERVER", "INTERNAL"), strict=True):
        connection.execute(
            "UPDATE spans SET parent_span_id = 'caller0000000001', kind = ? "
            "WHERE trace_id = ? AND parent_span_id IS NULL",
            [kind, trace],
        )

    assert _pass(connection, rule) == [traces[0]]


def test_a_where_naming_no_column_of_turns_is_refused_before_any_pass(
    store: tuple[SpanWriter, _Exporter],
) -> None:
    writer, _ = store
    rule = _rule(where="agent = 'shop'")  # the column is root_agent
    with pytest.raises(ConfigError) as refused:
        check_where(writer.connection.cursor(), rule)
    message = str(refused.value)
    assert message.startswith("rule 'budgets': where \"agent = 'shop'\": ")
    assert "agent" in message
    check_where(writer.connection.cursor(), _rule(where="root_agent = 'shop'"))


@costly
def test_a_sampled_rule_scores_the_traces_score_sample_would_pick(
    store: tuple[SpanWriter, _Exporter],
) -> None:
    writer, exporter = store
    connection = writer.connection.cursor()
    rule = _rule(sample=0.5, backfill=True)
    activate(connection, rule)
    exporter.export(adk_like_spans(12, seed=9, random_ids=True))
    picked, params = Selection(sample=0.5).predicate()
    expected = connection.execute(
        f"SELECT trace_id FROM turns WHERE {picked} ORDER BY 1",  # noqa: S608 — Selection's SQL
        params,
    ).fetchall()

    scored = _pass(connection, rule)
    assert scored == [row[0] for row in expected]
    assert 0 < len(scored) < 12
