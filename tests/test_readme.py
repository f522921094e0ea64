"""The README's generated sections are current, and every column is documented."""

from __future__ import annotations

from tests.support.views import VIEWS
from tracegrade import _readme
from tracegrade.store import connect
from tracegrade.store.schema_docs import relations


def test_every_view_and_table_is_documented_column_by_column() -> None:
    connection = connect(":memory:")
    documented = {r.name for r in relations(connection)}  # raises on an undocumented column
    views = {
        r[0]
        for r in connection.execute(
            "SELECT view_name FROM duckdb_views() WHERE NOT internal AND schema_name = 'main'"
        ).fetchall()
    }
    tables = {
        r[0]
        for r in connection.execute(
            "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'"
        ).fetchall()
    }
    assert views >= VIEWS
    assert views | (tables - {"tracegrade_migrations"}) == documented


def test_readme_generated_sections_are_current() -> None:
    current = _readme.README.read_text()
    assert _readme.render(current) == current, "run `python -m tracegrade._readme --write`"
