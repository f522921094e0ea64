"""`spans.attrs`: the attributes the views read, parsed once when a span is written.

A database written before migration 004 is filled by it on upgrade and must give exactly the
view rows a database written since gives; the writer's macro and the column agree.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from tests.support.paths import DATA
from tests.support.tiers import costly
from tracegrade._resources import sql_files
from tracegrade.ingest import ingest_file
from tracegrade.store import SpanWriter, connect
from tracegrade.store.migrations import MIGRATIONS_TABLE

TRACES = [
    *sorted((DATA / "traces").glob("*.otlp.jsonl")),
    DATA / "report" / "report_runs.otlp.jsonl",
]
VIEWS = ("agent_spans", "span_tree", "llm_calls", "tool_calls", "turns", "trajectories")


@pytest.fixture(scope="module")
def written_now(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("attrs") / "now.duckdb"
    writer = SpanWriter.open(path)
    try:
        for trace in TRACES:
            assert ingest_file(trace, writer).ok, trace
    finally:
        writer.close()
    return path


def _written_before_004(path: Path, source: Path) -> None:
    """A file as tracegrade made it before migration 004: its tables, its spans, no attrs."""
    raw = duckdb.connect(str(path))
    raw.execute(
        f"CREATE TABLE {MIGRATIONS_TABLE} (name VARCHAR PRIMARY KEY, "
        "applied_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp)"
    )
    for migration in sql_files("migrations")[:2]:
        raw.execute(migration.read_text())
        raw.execute(f"INSERT INTO {MIGRATIONS_TABLE} (name) VALUES (?)", [migration.stem])  # noqa: S608 — a constant table name
    raw.execute(f"ATTACH '{source}' AS now (READ_ONLY)")
    columns = [r[0] for r in raw.execute("DESCRIBE spans").fetchall()]
    assert "attrs" not in columns
    listed = ", ".join(columns)
    raw.execute(f"INSERT INTO spans ({listed}) SELECT {listed} FROM now.spans")  # noqa: S608 — column names
    raw.close()


def _rows(connection: duckdb.DuckDBPyConnection, view: str) -> list[tuple[object, ...]]:
    return sorted(connection.execute(f"SELECT * FROM {view}").fetchall(), key=repr)  # noqa: S608 — a view name


@costly
def test_an_upgraded_database_gives_the_same_view_rows(written_now: Path, tmp_path: Path) -> None:
    before = tmp_path / "before.duckdb"
    _written_before_004(before, written_now)
    upgraded = connect(before)  # migrates: 004 adds spans.attrs and fills it
    now = connect(written_now, read_only=True)
    try:
        assert upgraded.execute("SELECT count(*) FROM spans WHERE attrs IS NULL").fetchone() == (0,)
        for view in VIEWS:
            rows = _rows(now, view)
            assert rows, view
            assert _rows(upgraded, view) == rows, view
        same_attrs = "SELECT trace_id, span_id, attrs FROM spans ORDER BY trace_id, span_id"
        assert upgraded.execute(same_attrs).fetchall() == now.execute(same_attrs).fetchall()
    finally:
        upgraded.close()
        now.close()


@costly
def test_a_span_inserted_without_attrs_reads_the_same(written_now: Path, tmp_path: Path) -> None:
    """Rows another client inserts (attrs left NULL) are parsed at read time."""
    copy = tmp_path / "copy.duckdb"
    copy.write_bytes(written_now.read_bytes())
    connection = connect(copy)
    try:
        before = {view: _rows(connection, view) for view in VIEWS}
        connection.execute("UPDATE spans SET attrs = NULL")
        for view in VIEWS:
            assert _rows(connection, view) == before[view], view
    finally:
        connection.close()


def test_the_macro_gives_the_column_type(written_now: Path) -> None:
    connection = connect(written_now, read_only=True)
    try:
        column = connection.execute(
            "SELECT data_type FROM duckdb_columns() WHERE table_name = 'spans' "
            "AND column_name = 'attrs'"
        ).fetchone()
        macro = connection.execute("SELECT typeof(tg_span_attrs('{}'::JSON))").fetchone()
        assert column is not None
        assert macro is not None
        assert column[0] == macro[0]
    finally:
        connection.close()
