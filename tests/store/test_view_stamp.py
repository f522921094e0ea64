"""An open uses the file's own views when this tracegrade made them (a read command's start,
and every writer's open, skip binding them all again), and defines its own when another one
replaced them."""

from __future__ import annotations

import hashlib
from pathlib import Path

import duckdb

from tests.support.tiers import costly
from tracegrade.store import connect

pytestmark = costly  # every test here: see tests.support.tiers.costly


def _temporary_views(connection: duckdb.DuckDBPyConnection) -> set[str]:
    rows = connection.execute(
        "SELECT view_name FROM duckdb_views() WHERE temporary AND NOT internal"
    ).fetchall()
    return {name for (name,) in rows} & {"turns", "tool_calls", "trajectories", "eval_runs"}


def test_views_this_tracegrade_stored_are_used_as_they_are(db_path: Path) -> None:
    connect(db_path).close()
    with connect(db_path, read_only=True) as reading:
        assert _temporary_views(reading) == set()
        assert reading.execute("SELECT count(*) FROM turns").fetchall() == [(0,)]


def test_a_writable_open_of_a_file_this_tracegrade_made_leaves_it_as_it_is(
    db_path: Path,
) -> None:
    connect(db_path).close()
    before = hashlib.sha256(db_path.read_bytes()).digest()
    with connect(db_path) as writing:  # no view made again: nothing written
        assert writing.execute("SELECT count(*) FROM turns").fetchall() == [(0,)]
    assert hashlib.sha256(db_path.read_bytes()).digest() == before


def test_a_view_another_tracegrade_replaced_is_defined_again_for_the_connection(
    db_path: Path,
) -> None:
    connect(db_path).close()
    with duckdb.connect(str(db_path)) as other:  # as an older tracegrade's views would be
        other.execute("CREATE OR REPLACE VIEW turns AS SELECT 1 AS stale")
    with connect(db_path, read_only=True) as reading:
        assert _temporary_views(reading) == {"turns", "tool_calls", "trajectories", "eval_runs"}
        columns = [d[0] for d in reading.execute("SELECT * FROM turns").description]
        assert "stale" not in columns
        assert "trace_id" in columns
    connect(db_path).close()  # a writable open makes and stamps them again
    with connect(db_path, read_only=True) as reading:
        assert _temporary_views(reading) == set()
