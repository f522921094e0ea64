"""The tool-call check on read-only connections, registered only for the queries whose
answer depends on it (store/view_functions.py): real ADK agents make valid and invalid
calls, the spans go through the real exporter into a DuckDB file, which is then read as
`tracegrade sql` reads it (`Store.reader()`), with and without the check."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from tests.support.adk_run import adk_settings, run_scenario
from tests.support.scenarios import Scenario
from tests.support.tiers import costly
from tests.support.tool_agents import INVALID_CALLS, VALID_CALLS, tools_agent
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.store import LocalReader, SpanWriter, connect
from tracegrade.store.view_functions import (
    CHECK_FUNCTION,
    SHIPPED_VIEWS,
    needs_view_functions,
)
from tracegrade.workspace.store import Store

CALLS = "SELECT name, valid FROM tool_calls ORDER BY start_ns"


@pytest.fixture
def calls_db(db_path: Path, writer: SpanWriter, captured: BlockingSpanProcessor) -> Path:
    """A file holding valid and invalid calls, closed, as a read command finds it."""
    every_call = VALID_CALLS + [c for c, _ in INVALID_CALLS]
    with adk_settings("2", True):
        run_scenario(Scenario("tools", lambda: tools_agent(every_call), ("Go",)))
    assert captured.force_flush()
    writer.close()
    return db_path


def _registered(reader: LocalReader) -> bool:
    found = reader.connection.execute(
        "SELECT count(*) FROM duckdb_functions() WHERE function_name = ?", [CHECK_FUNCTION]
    ).fetchone()
    return bool(found and found[0])


def test_a_read_only_reader_checks_the_calls_a_query_reads(calls_db: Path) -> None:
    with Store(calls_db).reader() as reader:
        assert isinstance(reader, LocalReader)
        reader.query("SELECT 1")
        reader.query("SELECT count(*) FROM turns")
        assert not _registered(reader)  # neither depends on the check: not paid for
        _, rows = reader.query(CALLS)
        assert _registered(reader)
    assert [valid for _, valid in rows] == [True] * len(VALID_CALLS) + [False] * len(INVALID_CALLS)


def test_a_connection_tracegrade_opens_for_a_caller_checks_at_once(calls_db: Path) -> None:
    connection = connect(calls_db, read_only=True)  # the Python API's: no reader in between
    try:
        rows = connection.execute(CALLS).fetchall()
    finally:
        connection.close()
    assert [valid for _, valid in rows].count(False) == len(INVALID_CALLS)


def test_a_plain_duckdb_client_still_gets_the_stand_in(calls_db: Path) -> None:
    connection = duckdb.connect(str(calls_db), read_only=True)
    try:
        rows = connection.execute(CALLS).fetchall()
    finally:
        connection.close()
    assert len(rows) == len(VALID_CALLS) + len(INVALID_CALLS)
    assert {valid for _, valid in rows} == {None}  # "not checked", and no error


def test_a_users_own_view_over_the_calls_is_checked(calls_db: Path) -> None:
    connection = duckdb.connect(str(calls_db))  # made outside tracegrade, in the file
    connection.execute("CREATE VIEW bad_calls AS SELECT name FROM tool_calls WHERE NOT valid")
    connection.close()
    with Store(calls_db).reader() as reader:
        _, rows = reader.query("SELECT count(*) FROM bad_calls")
    assert rows == [(len(INVALID_CALLS),)]


@costly
def test_only_tool_calls_answers_differently_with_the_check(calls_db: Path) -> None:
    """Why the check is left out for every other shipped view: its rows are the same
    either way (and the test can tell: tool_calls' are not)."""
    plain = connect(calls_db, read_only=True, view_functions=False)
    checked = connect(calls_db, read_only=True)
    try:
        views = {name for (name,) in plain.execute(
            "SELECT view_name FROM duckdb_views() WHERE NOT internal"
        ).fetchall()}  # fmt: skip
        assert views == SHIPPED_VIEWS
        differ = {view for view in sorted(views) if _rows(plain, view) != _rows(checked, view)}
    finally:
        plain.close()
        checked.close()
    assert differ == {"tool_calls"}


def _rows(connection: duckdb.DuckDBPyConnection, view: str) -> list[str]:
    return sorted(map(repr, connection.execute(f"SELECT * FROM {view}").fetchall()))  # noqa: S608


@pytest.mark.parametrize(
    ("sql", "needed"),
    [
        ("SELECT 1", False),
        ("SELECT turns FROM scorings", False),  # a column named like a view
        ("SELECT name, args FROM tool_calls WHERE seq IS NOT NULL", False),
        ("SELECT * FROM trajectories", False),
        ("SELECT * FROM tool_calls", True),
        ("SELECT t.* FROM tool_calls t", True),
        ("SELECT c FROM tool_calls c", True),  # the whole row, `valid` in it
        ("SELECT count(*) FROM tool_calls WHERE NOT valid", True),
        ("SELECT c.validity_errors FROM main.tool_calls c", True),
        ("SELECT #1 FROM tool_calls", True),
        ("WITH v AS (SELECT valid FROM tool_calls) SELECT count(*) FROM v", True),
        ("SELECT tg_canonical_json('{}')", True),
        ("SELECT * FROM query_table('tool_calls')", True),
        ("SELEC 1", True),  # unparsable: yes, and DuckDB gives the error
    ],
)
def test_which_queries_need_the_check(sql: str, needed: bool) -> None:
    connection = duckdb.connect()
    try:
        assert needs_view_functions(connection, sql) is needed
    finally:
        connection.close()
