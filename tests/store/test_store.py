"""Opening the database: recorded migrations, views on every open, clear lock errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from tests.support.tiers import costly
from tests.support.views import VIEWS
from tracegrade._resources import sql_files
from tracegrade.errors import DatabaseError, DatabaseLockedError
from tracegrade.store import connect, resolve_path
from tracegrade.store.migrations import MIGRATIONS_TABLE, migrate


def test_migrations_are_recorded_and_run_once(db_path: Path) -> None:
    connection = connect(db_path)
    applied = [
        r[0]
        for r in connection.execute(
            f"SELECT name FROM {MIGRATIONS_TABLE} ORDER BY name"  # noqa: S608 — a constant
        ).fetchall()
    ]
    assert applied == [p.stem for p in sql_files("migrations")]
    assert migrate(connection) == []
    connection.close()


def test_views_live_in_the_file_for_any_duckdb_client(db_path: Path) -> None:
    connect(db_path).close()
    plain = duckdb.connect(str(db_path), read_only=True)  # no tracegrade involved
    views = {
        r[0]
        for r in plain.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()
    }
    plain.close()
    assert views >= VIEWS


@costly
def test_read_only_open_changes_nothing(db_path: Path) -> None:
    connect(db_path).close()
    before = db_path.stat().st_mtime_ns
    reader = connect(db_path, read_only=True)
    assert reader.execute("SELECT count(*) FROM turns").fetchall() == [(0,)]
    reader.close()
    assert db_path.stat().st_mtime_ns == before


def test_read_only_refuses_a_file_from_an_older_tracegrade(db_path: Path) -> None:
    raw = duckdb.connect(str(db_path))
    raw.execute(
        f"CREATE TABLE {MIGRATIONS_TABLE} (name VARCHAR PRIMARY KEY, applied_at TIMESTAMPTZ)"
    )
    raw.execute(f"INSERT INTO {MIGRATIONS_TABLE} VALUES ('001_spans', now())")  # noqa: S608 — a constant
    raw.execute(sql_files("migrations")[0].read_text())
    raw.close()
    with pytest.raises(
        DatabaseError,
        match=r"written by an older tracegrade \(missing 002_scores[^)]*\).*db upgrade",
    ):
        connect(db_path, read_only=True)
    connect(db_path).close()  # a writable open upgrades it
    connect(db_path, read_only=True).close()


def test_reading_a_database_that_does_not_exist_says_so(tmp_path: Path) -> None:
    with pytest.raises(DatabaseError, match=r"no database at .*missing\.duckdb"):
        connect(tmp_path / "missing.duckdb", read_only=True)


def test_a_locked_database_names_the_process_holding_it(db_path: Path) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
            "print('ready', flush=True); time.sleep(60)",
            str(db_path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "ready"
        with pytest.raises(DatabaseLockedError) as caught:
            connect(db_path)
        message = str(caught.value)
        assert f"locked by process {holder.pid}" in message
        assert "time.sleep(60)" in message
        assert "wait for it to finish, or stop it" in message
    finally:
        holder.kill()
        holder.wait()
        assert holder.stdout is not None
        holder.stdout.close()


def test_path_defaults_to_env_then_working_directory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("TRACEGRADE_DB", raising=False)
    assert resolve_path() == Path("tracegrade.duckdb")
    monkeypatch.setenv("TRACEGRADE_DB", str(tmp_path / "x.duckdb"))
    assert resolve_path() == tmp_path / "x.duckdb"
    assert resolve_path(tmp_path / "y.duckdb") == tmp_path / "y.duckdb"
