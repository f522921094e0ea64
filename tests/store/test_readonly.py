"""The read-only guard: each of its three layers refuses hostile SQL on its own."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from tests.support.hostile_sql import CONDITIONS, QUERIES, SECRET_TEXT, fill, make_secret
from tracegrade.errors import DatabaseError
from tracegrade.store.readonly import (
    QueryRefused,
    check_condition,
    guarded_rows,
    lock_down,
    read_only_statement,
    read_only_transaction,
)


@pytest.fixture
def database(tmp_path: Path) -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect(str(tmp_path / "guard.duckdb"))
    connection.execute("CREATE TABLE spans (trace_id VARCHAR, span_id VARCHAR, name VARCHAR)")
    connection.execute("INSERT INTO spans VALUES ('t', 's', 'n')")
    connection.execute("CREATE VIEW turns AS SELECT name AS user_text, 1 AS n FROM spans")
    connection.execute("CREATE SEQUENCE counter")
    return connection


def intact(connection: duckdb.DuckDBPyConnection) -> bool:
    return connection.execute("SELECT * FROM spans").fetchall() == [("t", "s", "n")]


@pytest.mark.parametrize("query", QUERIES, ids=range(len(QUERIES)))
def test_hostile_queries_are_refused_before_they_run(query: str, tmp_path: Path) -> None:
    text = fill(query, make_secret(tmp_path), tmp_path / "out")
    with pytest.raises(DatabaseError) as refused:
        read_only_statement(text)
    assert "\n" not in str(refused.value), "errors are printed on one line"


@pytest.mark.parametrize("condition", CONDITIONS, ids=range(len(CONDITIONS)))
def test_hostile_conditions_are_refused(condition: str, tmp_path: Path) -> None:
    with pytest.raises(DatabaseError):
        check_condition(fill(condition, make_secret(tmp_path), tmp_path / "out"))


@pytest.mark.parametrize(
    "query",
    [
        "SELECT 1",
        "FROM spans",
        "SELECT name, count(*) FROM spans GROUP BY ALL ORDER BY 2 DESC LIMIT 3",
        "WITH x AS (SELECT * FROM spans) SELECT * FROM x UNION ALL SELECT * FROM x",
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) FROM r",
        "SUMMARIZE spans",
        "DESCRIBE spans",
        "SELECT * FROM main.spans WHERE name LIKE ? -- a comment",
        "SELECT json_extract('{\"a\": 1}', '$.a'), 'it''s', $$dollar$$",
    ],
)
def test_read_only_queries_pass(query: str) -> None:
    assert read_only_statement(query).type == duckdb.StatementType.SELECT


@pytest.mark.parametrize(
    "condition",
    ["n > 0", "user_text = 'x' -- comment", "n IN (SELECT 1)", "EXISTS (FROM spans)", "true"],
)
def test_conditions_pass_wrapped_for_embedding(condition: str) -> None:
    assert check_condition(condition) == f"(\n{condition}\n)"


def test_a_condition_adding_clauses_says_so() -> None:
    with pytest.raises(QueryRefused, match="clauses of its own"):
        check_condition("true UNION SELECT * FROM turns")


def test_the_transaction_stops_writes_the_checks_would_have_caught(
    database: duckdb.DuckDBPyConnection,
) -> None:
    """Layer 3 alone: a write reaching the connection inside the guard's transaction fails."""
    for statement in [
        "DELETE FROM spans",
        "WITH d AS (DELETE FROM spans RETURNING 1) SELECT * FROM d",
        "SELECT nextval('counter')",
        "DROP TABLE spans",
    ]:
        with read_only_transaction(database), pytest.raises(duckdb.Error):
            database.execute(statement)
    assert intact(database)
    assert database.execute("SELECT nextval('counter')").fetchall() == [(1,)]


def test_the_locked_database_reads_no_files(
    database: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    secret = make_secret(tmp_path)
    lock_down(database)
    lock_down(database)  # idempotent
    for statement in [
        f"SELECT * FROM read_text('{secret}')",  # noqa: S608 — the point of the test
        f"SELECT * FROM '{secret}'",  # noqa: S608 — the point of the test
    ]:
        with pytest.raises(duckdb.Error) as refused:
            database.execute(statement)
        assert SECRET_TEXT not in str(refused.value)
    with pytest.raises(duckdb.Error, match="locked"):
        database.execute("SET enable_external_access = true")


def test_guarded_rows_answers_and_leaves_the_database_as_it_was(
    database: duckdb.DuckDBPyConnection,
) -> None:
    assert guarded_rows(database, "SELECT count(*) FROM spans WHERE name = ?", ["n"]) == [(1,)]
    with pytest.raises(DatabaseError, match="no_such_column"):
        guarded_rows(database, "SELECT no_such_column FROM spans")
    assert intact(database)
    database.execute("INSERT INTO spans VALUES ('t2', 's2', 'n2')")  # still writable after
    assert database.execute("SELECT count(*) FROM spans").fetchall() == [(2,)]
