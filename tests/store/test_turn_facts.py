"""The turn facts the writer keeps are the rows scoring would rebuild from spans.

On a real eval run (the home-automation example through the harness and the exporter into
a DuckDB file) and on traffic (ADK-shaped spans over OTLP into serve's application), the
facts read back as `scoring_turns`, `scoring_turn_calls` and `scoring_turn_llm_calls` hold
exactly the rows a rebuild from spans makes; a late span makes its trace's facts stale at
once and the keeper recomputes that trace alone; and a scoring over facts stores the same
scores as one over spans.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import duckdb
import pytest

from tests.examples.home_example import EVALSET, offline_agent_module, run_example
from tests.serve.helpers import PROTOBUF, protobuf
from tests.support.cli import invoke
from tests.support.serve_app import ServeApp
from tests.support.span_factory import adk_like_spans
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor, DuckDBSpanExporter
from tracegrade.report import build_report
from tracegrade.report.queries import from_facts
from tracegrade.scoring import Selection, load_scoring_config, score
from tracegrade.scoring.selected import drop_selected, select_traces
from tracegrade.store import LocalReader, SpanWriter, connect
from tracegrade.store.migrations import migrate
from tracegrade.store.turn_facts import refresh, version
from tracegrade.store.view_functions import register_view_functions

RELATIONS = ("scoring_turns", "scoring_turn_calls", "scoring_turn_llm_calls")
# An eval run's cases, read from its case spans (turn_fact_cases where its facts are fresh).
EXPECTED = "scoring_expected_turns"


def selected(connection: duckdb.DuckDBPyConnection, *, read_facts: bool) -> dict[str, Any]:
    """Every trace's turn rows as scoring selects them, from facts where fresh or all
    rebuilt from spans; and how many spans were rebuilt."""
    cursor = connection.cursor()  # temporary tables of its own, as a scoring's
    try:
        register_view_functions(cursor)
        select_traces(cursor, None, read_facts=read_facts)
        found: dict[str, Any] = {}
        for name in (*RELATIONS, EXPECTED):
            described = cursor.execute(f"DESCRIBE {name}").fetchall()
            rows = cursor.execute(f"SELECT * FROM {name}").fetchall()  # noqa: S608 — our names
            found[name] = ([(c[0], c[1]) for c in described], sorted(rows, key=repr))
        ((found["rebuilt_spans"],),) = cursor.execute(
            "SELECT count(*) FROM scoring_rebuilt_spans"
        ).fetchall()
        drop_selected(cursor)
        return found
    finally:
        cursor.close()


def assert_same_rows(connection: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    facts = selected(connection, read_facts=True)
    rebuilt = selected(connection, read_facts=False)
    for name in (*RELATIONS, EXPECTED):
        assert facts[name] == rebuilt[name], name
    return facts


def fact_traces(connection: duckdb.DuckDBPyConnection) -> dict[str, tuple[int, Any]]:
    rows = connection.execute(
        "SELECT trace_id, spans, computed_at FROM turn_fact_traces"
    ).fetchall()
    return {trace: (spans, at) for trace, spans, at in rows}


# --- an eval run through the harness ---------------------------------------------------------


@pytest.fixture
def agent_module(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    return offline_agent_module(monkeypatch)


@costly
def test_an_eval_runs_facts_are_its_rebuilt_rows_and_score_and_report_the_same(
    agent_module: ModuleType, captured: BlockingSpanProcessor, writer: SpanWriter
) -> None:
    result = run_example(captured)
    assert writer.flush_facts(60)
    connection = writer.connection
    ((turns,),) = connection.execute(
        "SELECT count(*) FROM turn_facts WHERE run_id = ?", [result.run_id]
    ).fetchall()
    assert turns >= 10  # every case's turns, every repeat, the simulated conversation's too

    facts = assert_same_rows(connection)
    assert facts["rebuilt_spans"] == 0  # every trace read from its facts
    assert len(facts["scoring_turns"][1]) == turns
    assert facts["scoring_turn_calls"][1]
    assert facts["scoring_turn_llm_calls"][1]
    assert facts[EXPECTED][1]  # the cases' expected turns, from their kept case spans
    cases = connection.execute(
        "SELECT count(*) FROM spans "
        "WHERE scope_name = 'tracegrade' AND name = 'tracegrade.eval_case'"
    ).fetchall()
    assert connection.execute("SELECT count(*) FROM turn_fact_cases").fetchall() == cases

    # A database whose facts were kept before migration 12: it keeps their case spans then.
    connection.execute("DROP TABLE turn_fact_cases")
    connection.execute("DELETE FROM tracegrade_migrations WHERE name = '012_turn_fact_cases'")
    assert migrate(connection) == ["012_turn_fact_cases"]
    assert connection.execute("SELECT count(*) FROM turn_fact_cases").fetchall() == cases
    assert assert_same_rows(connection) == facts

    loaded = load_scoring_config(None, [str(EVALSET)])
    selection = Selection(run_id=result.run_id)
    over_facts = score(connection, selection, loaded.config, loaded.specs)
    reader = LocalReader(connection)
    assert from_facts(reader, result.run_id)
    report_over_facts = build_report(reader, scoring_id=over_facts.scoring_id)
    connection.execute("DELETE FROM turn_fact_traces")  # as a database from before the facts
    assert selected(connection, read_facts=True)["rebuilt_spans"] > 0
    assert not from_facts(reader, result.run_id)  # read through the views
    report_over_spans = build_report(reader, scoring_id=over_facts.scoring_id)
    over_spans = score(connection, selection, loaded.config, loaded.specs)

    # The report reads the same turns and calls, a failed call's error type included.
    assert report_over_facts.model_dump() == report_over_spans.model_dump()
    errors = [
        call.error
        for case in report_over_facts.cases
        for repeat in case.repeat_results
        for turn in repeat.turns
        for call in turn.tool_calls
        if call.error
    ]
    assert errors
    assert all(error.type for error in errors)

    assert over_facts.verdict == over_spans.verdict
    assert over_facts.exit_code == over_spans.exit_code
    assert_same_scores(
        stored_scores(connection, over_facts.scoring_id),
        stored_scores(connection, over_spans.scoring_id),
    )


def stored_scores(connection: duckdb.DuckDBPyConnection, scoring_id: str) -> list[Any]:
    rows = connection.execute(
        "SELECT * EXCLUDE (scoring_id) FROM scores WHERE scoring_id = ?", [scoring_id]
    ).fetchall()
    assert rows
    return sorted(rows, key=repr)


def assert_same_scores(got: list[Any], expected: list[Any]) -> None:
    """Equal, but for the last bits of a sum of doubles: DuckDB adds a run's latencies in
    the order its threads meet them, which differs between two scorings of the same rows
    (seen over spans alone too)."""
    assert len(got) == len(expected)
    for row, want in zip(got, expected, strict=True):
        assert _close(row, want), (row, want)


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, str) and isinstance(b, str) and a[:1] in "{[" and a != b:
        return _close(json.loads(a), json.loads(b))
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    return bool(a == b)


# --- traffic through serve ---------------------------------------------------------------------


@pytest.fixture
def traffic_app(tmp_path: Path) -> Iterator[ServeApp]:
    app = ServeApp(tmp_path / "traffic.duckdb")
    yield app
    app.close()


@costly
def test_traffic_facts_and_a_late_span_recompute_only_its_turn(traffic_app: ServeApp) -> None:
    spans = adk_like_spans(6, seed=41)
    late = next(s for s in spans if s.name == "execute_tool find")  # turn 0's tool call
    late_trace = f"{late.context.trace_id:032x}"
    reply = traffic_app.post("/v1/traces", protobuf([s for s in spans if s is not late]), PROTOBUF)
    assert reply.status == 200, reply.body
    writer = traffic_app.writer
    assert writer.flush_facts(60)
    connection = writer.connection
    before = fact_traces(connection)
    assert len(before) == 6
    assert late_trace in before
    facts = assert_same_rows(connection)
    assert facts["rebuilt_spans"] == 0
    assert len(facts["scoring_turns"][1]) == 6

    time.sleep(0.01)  # computed_at tells the recomputed trace from the others
    reply = traffic_app.post("/v1/traces", protobuf([late]), PROTOBUF)
    assert reply.status == 200, reply.body
    assert writer.flush_facts(60)
    after = fact_traces(connection)
    assert after[late_trace][0] == before[late_trace][0] + 1
    assert after[late_trace][1] > before[late_trace][1]
    assert {t: v for t, v in after.items() if t != late_trace} == {
        t: v for t, v in before.items() if t != late_trace
    }
    facts = assert_same_rows(connection)
    assert facts["rebuilt_spans"] == 0
    calls = {
        (row[0].split("-")[0], row[2]) for row in facts["scoring_turn_calls"][1]
    }  # (trace, tool name)
    assert (late_trace, "find") in calls


@costly
def test_a_late_span_makes_its_trace_stale_at_once(tmp_path: Path) -> None:
    """Before any keeper recomputes it, the late span's trace is rebuilt from its spans."""
    writer = SpanWriter.open(tmp_path / "late.duckdb", keep_facts=False)
    exporter = DuckDBSpanExporter(writer=writer)
    try:
        spans = adk_like_spans(3, seed=42)
        late = next(s for s in spans if s.name == "generate_content m")
        late_trace = f"{late.context.trace_id:032x}"
        exporter.export([s for s in spans if s is not late])
        assert exporter.force_flush()
        keeper = writer.connection.cursor()
        register_view_functions(keeper)
        traces = {f"{s.context.trace_id:032x}" for s in spans}
        assert refresh(keeper, traces) == 3
        assert assert_same_rows(writer.connection)["rebuilt_spans"] == 0

        exporter.export([late])
        assert exporter.force_flush()
        facts = assert_same_rows(writer.connection)
        ((late_spans,),) = writer.connection.execute(
            "SELECT count(*) FROM spans WHERE trace_id = ?", [late_trace]
        ).fetchall()
        assert facts["rebuilt_spans"] == late_spans  # that trace alone
        assert refresh(keeper, [late_trace]) == 1
        assert assert_same_rows(writer.connection)["rebuilt_spans"] == 0
        keeper.close()
    finally:
        exporter.shutdown()
        writer.close()


def test_a_trace_without_its_root_has_no_facts_until_the_root_comes(tmp_path: Path) -> None:
    spans = adk_like_spans(2, seed=43)
    root = next(s for s in spans if s.parent is None)
    root_trace = f"{root.context.trace_id:032x}"
    with ServeApp(tmp_path / "roots.duckdb") as app:
        reply = app.post("/v1/traces", protobuf([s for s in spans if s is not root]), PROTOBUF)
        assert reply.status == 200, reply.body
        assert app.writer.flush_facts(60)
        assert root_trace not in fact_traces(app.writer.connection)
        assert_same_rows(app.writer.connection)
        assert app.post("/v1/traces", protobuf([root]), PROTOBUF).status == 200
        assert app.writer.flush_facts(60)
        assert root_trace in fact_traces(app.writer.connection)
        assert assert_same_rows(app.writer.connection)["rebuilt_spans"] == 0


def test_facts_of_another_version_are_not_read(tmp_path: Path) -> None:
    db = tmp_path / "versions.duckdb"
    with ServeApp(db) as app:
        reply = app.post("/v1/traces", protobuf(adk_like_spans(3, seed=44)), PROTOBUF)
        assert reply.status == 200, reply.body
        assert app.writer.flush_facts(60)
        connection = app.writer.connection
        connection.execute("UPDATE turn_fact_traces SET version = 'older'")
        assert selected(connection, read_facts=True)["rebuilt_spans"] > 0
        assert_same_rows(connection)


@costly
def test_the_fact_tables_hold_exactly_what_scoring_selects(tmp_path: Path) -> None:
    """Columns and types: a view that changes what scoring selects needs a migration."""
    connection = connect(tmp_path / "columns.duckdb")
    try:
        rebuilt = selected(connection, read_facts=False)
        for relation, table in zip(
            RELATIONS, ("turn_facts", "turn_fact_calls", "turn_fact_llm_calls"), strict=True
        ):
            stored = connection.execute(f"DESCRIBE {table}").fetchall()
            assert [(c[0], c[1]) for c in stored] == rebuilt[relation][0], table
        assert len(version()) == 16
        assert json.dumps(version())
    finally:
        connection.close()


@costly
def test_db_upgrade_computes_the_facts_a_database_was_stored_without(tmp_path: Path) -> None:
    db = tmp_path / "older.duckdb"
    writer = SpanWriter.open(db, keep_facts=False)  # as a tracegrade before migration 10
    exporter = DuckDBSpanExporter(writer=writer)
    exporter.export(adk_like_spans(4, seed=45))
    assert exporter.force_flush()
    exporter.shutdown()
    assert selected(writer.connection, read_facts=True)["rebuilt_spans"] > 0
    writer.close()

    result = invoke("db", "upgrade", "--db", str(db))
    assert result.exit_code == 0, result.output
    assert "turn facts computed for 4 traces stored without them" in result.output
    connection = connect(db)
    try:
        assert assert_same_rows(connection)["rebuilt_spans"] == 0
    finally:
        connection.close()
    again = invoke("db", "upgrade", "--db", str(db))
    assert "turn facts computed" not in again.output  # nothing left to compute
