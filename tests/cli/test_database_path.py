"""A --db that is not there: commands that read a database refuse it (a typo must not
become a new, empty file), commands that record create it; an empty file is named as one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.cli import invoke, one_line_error
from tracegrade.exit_codes import ExitCode
from tracegrade.store import connect

READERS = [
    ["score"],
    ["db", "upgrade"],
    ["report"],
    ["runs"],
    ["diff", "a", "b"],
    ["sql", "SELECT 1"],
    ["export-evalset", "out.evalset.json", "--where", "true"],
    ["archive", "--archive", "parquet"],
]


@pytest.mark.parametrize("command", READERS, ids=lambda c: " ".join(c[:2]))
def test_a_mistyped_db_is_refused_with_the_near_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    connect(tmp_path / "tracegrade.duckdb").close()

    done = invoke(*command, "--db", "tracegrad.duckdb")

    assert done.exit_code == ExitCode.USAGE_ERROR, done.output
    assert one_line_error(done.stderr) == (
        "tracegrade: no database at tracegrad.duckdb: did you mean tracegrade.duckdb?"
    )
    assert sorted(os.listdir(tmp_path)) == ["tracegrade.duckdb"]  # nothing created


def test_with_no_near_name_it_says_what_creates_one(tmp_path: Path) -> None:
    missing = tmp_path / "ci" / "evals.duckdb"

    done = invoke("score", "--db", str(missing))

    assert one_line_error(done.stderr) == (
        f"tracegrade: no database at {missing}: nothing has been recorded there yet "
        "(`tracegrade run`, `ingest` or `serve` creates it)"
    )
    assert not missing.parent.exists()


def test_ingest_still_creates_the_database(tmp_path: Path) -> None:
    new = tmp_path / "new" / "traces.duckdb"

    done = invoke("ingest", os.devnull, "--db", str(new))

    assert done.exit_code == 0, done.output
    assert invoke("runs", "--db", str(new)).exit_code == 0  # a database, migrated


@pytest.mark.parametrize("command", [["report"], ["score"], ["ingest", os.devnull]])
def test_an_empty_file_is_named_as_one_not_as_damage(tmp_path: Path, command: list[str]) -> None:
    empty = tmp_path / "t.duckdb"
    empty.touch()

    done = invoke(*command, "--db", str(empty))

    assert done.exit_code == ExitCode.USAGE_ERROR, done.output
    assert one_line_error(done.stderr) == (
        f"tracegrade: {empty} is an empty file (0 bytes), not a DuckDB database: point --db "
        "or ${TRACEGRADE_DB} at the right file, or delete it to start a new database there"
    )
    assert empty.stat().st_size == 0
