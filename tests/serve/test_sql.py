"""The read-only SQL endpoint: SELECTs answer, everything else is refused."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import duckdb
import pytest

from tests.support.span_factory import adk_like_spans
from tracegrade.remote import RemoteDatabase, RemoteError
from tracegrade.server.sql import ReadOnlyQueries, SqlFailed
from tracegrade.store.readonly import lock_down

from .helpers import JSON, PROTOBUF, Server, ids_of, protobuf

SPANS = adk_like_spans(4, seed=70)


@pytest.fixture(scope="module", autouse=True)
def some_spans(server: Server) -> None:
    assert server.post("/v1/traces", protobuf(SPANS), PROTOBUF).status == 200


def test_a_select_with_params(server: Server) -> None:
    traces = sorted({trace for trace, _ in ids_of(SPANS)})
    reply = server.sql(
        "SELECT name, count(*) AS n FROM spans WHERE name LIKE ? AND list_contains(?, trace_id) "
        "GROUP BY name ORDER BY name",
        ["%shop", traces],
    )
    assert reply.status == 200, reply.body
    result = reply.json()
    assert result["columns"] == ["name", "n"]
    assert result["types"] == ["VARCHAR", "BIGINT"]
    assert ["invoke_agent shop", 4] in result["rows"]
    assert result["truncated"] is False


def test_views_are_there(server: Server) -> None:
    assert server.sql("SELECT count(*) FROM agent_spans").status == 200


def test_values_json_lacks_come_back_readable(server: Server) -> None:
    reply = server.sql(
        "SELECT 0.5 AS d, TIMESTAMPTZ '2026-01-02 03:04:05+00' AS t, 'ab'::BLOB AS b, "
        "[1, 2] AS l, {'a': 1} AS s, 'nan'::DOUBLE AS f, INTERVAL 90 SECOND AS i, "
        "'8c5a1dd4-7e3a-4a4b-9f2c-1d2e3f405162'::UUID AS u"
    )
    assert reply.status == 200, reply.body
    row = reply.json()["rows"][0]
    assert row[0] == 0.5
    assert row[1].startswith("2026-01-02")
    assert row[2] == "YWI="
    assert row[3:5] == [[1, 2], {"a": 1}]
    assert row[5] == "nan"
    assert row[6] == 90.0
    assert row[7] == "8c5a1dd4-7e3a-4a4b-9f2c-1d2e3f405162"


def test_the_row_cap(server: Server) -> None:
    reply = server.sql("SELECT * FROM range(10)", limit=3)
    assert reply.json()["rows"] == [[0], [1], [2]]
    assert reply.json()["truncated"] is True


@pytest.mark.parametrize(
    "sql",
    [
        "INSERT INTO spans (trace_id) VALUES ('x')",
        "DELETE FROM spans",
        "UPDATE spans SET name = 'x'",
        "DROP TABLE spans",
        "CREATE TABLE t AS SELECT 1",
        "ATTACH '/tmp/other.duckdb'",
        "COPY spans TO '/tmp/spans.csv'",
        "PRAGMA database_size",
        "SET enable_external_access = true",
        "CALL pragma_version()",
        "INSTALL httpfs",
        "SELECT 1; SELECT 2",
        "SELECT 1; DROP TABLE spans",
        "",
    ],
)
def test_anything_but_one_select_is_refused(server: Server, sql: str) -> None:
    reply = server.sql(sql)
    assert reply.status == 403, reply.body
    assert reply.json()["error"]
    assert server.rows("SELECT count(*) > 0 FROM spans") == [[True]]


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM read_csv('/etc/passwd')",
        "SELECT * FROM read_text('/etc/hostname')",
        "SELECT * FROM glob('/*')",
        "SELECT * FROM read_parquet('https://example.com/x.parquet')",
        "SELECT * FROM query('DELETE FROM spans')",
    ],
)
def test_selects_cannot_reach_files_or_write(server: Server, sql: str) -> None:
    """Refused by the guard before they run (and the locked database would fail them)."""
    reply = server.sql(sql)
    assert reply.status == 403, reply.body
    assert "is not allowed" in reply.json()["error"]
    assert server.rows("SELECT count(*) > 0 FROM spans") == [[True]]


def test_duckdb_errors_come_back_as_400(server: Server) -> None:
    reply = server.sql("SELECT no_such_column FROM spans")
    assert reply.status == 400
    assert "no_such_column" in reply.json()["error"]


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        b"[]",
        b'{"sql": 1}',
        b'{"sql": "SELECT 1", "params": 3}',
        b'{"sql": "SELECT 1", "limit": -1}',
    ],
)
def test_malformed_requests(server: Server, body: bytes) -> None:
    assert server.post("/v1/sql", body, JSON).status == 400


def test_remote_database_client(server: Server) -> None:
    remote = RemoteDatabase(server.url)
    columns, rows = remote.query("SELECT ? + 1 AS answer", [41])
    assert (columns, rows) == (["answer"], [[42]])
    with pytest.raises(RemoteError, match=r"403.*only SELECT"):
        remote.query("DELETE FROM spans")
    with pytest.raises(RemoteError, match="row limit"):
        remote.query("SELECT * FROM range(200000)")
    assert len(remote.query("SELECT * FROM range(200000)", limit=5)[1]) == 5


def test_a_query_past_its_timeout_is_stopped() -> None:
    connection = duckdb.connect()
    lock_down(connection)
    queries = ReadOnlyQueries(connection, timeout_s=0.2, max_rows=10, max_bytes=1 << 20)
    started = time.monotonic()
    with pytest.raises(SqlFailed, match=r"longer than 0\.2 s"):
        queries.run(
            "SELECT count(*) FROM range(1000000000) a, range(1000000) b WHERE a.range * b.range = 7"
        )
    assert time.monotonic() - started < 5
    assert json.loads(queries.run("SELECT 1 AS one"))["rows"] == [[1]]


SLOW = "SELECT count(*) FROM range(1000000000) a, range(1000000) b WHERE a.range * b.range = 7"


def in_thread(
    queries: ReadOnlyQueries, sql: str, deadline: float
) -> tuple[threading.Thread, list[Any]]:
    """Run one query on its own thread; the list gets its answer or error, and the time."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(queries.run(sql, deadline=deadline))
        except SqlFailed as exc:
            outcome.append(exc)
        outcome.append(time.monotonic())

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def test_a_users_queries_take_turns() -> None:
    """The second waits for the first to end (DuckDB would hold both queries' rows at once)."""
    connection = duckdb.connect()
    lock_down(connection)
    queries = ReadOnlyQueries(connection, timeout_s=30, max_rows=10, max_bytes=1 << 20)
    slow, slow_outcome = in_thread(queries, SLOW, time.monotonic() + 1.0)
    time.sleep(0.3)
    quick, quick_outcome = in_thread(queries, "SELECT 1 AS one", time.monotonic() + 30)
    slow.join(30)
    quick.join(30)
    assert isinstance(slow_outcome[0], SqlFailed)
    assert json.loads(quick_outcome[0])["rows"] == [[1]]
    assert quick_outcome[1] >= slow_outcome[1]


def test_stopping_every_query_stops_those_waiting_their_turn() -> None:
    connection = duckdb.connect()
    lock_down(connection)
    queries = ReadOnlyQueries(connection, timeout_s=30, max_rows=10, max_bytes=1 << 20)
    running, running_outcome = in_thread(queries, SLOW, time.monotonic() + 30)
    time.sleep(0.3)
    waiting, waiting_outcome = in_thread(queries, "SELECT 1", time.monotonic() + 30)
    time.sleep(0.3)
    stopped = time.monotonic()
    queries.interrupt_all("the server is stopping: the query was stopped")
    running.join(30)
    waiting.join(30)
    for outcome in (running_outcome, waiting_outcome):
        assert isinstance(outcome[0], SqlFailed)
        assert str(outcome[0]) == "the server is stopping: the query was stopped"
        assert outcome[1] - stopped < 10
    assert json.loads(queries.run("SELECT 1 AS one"))["rows"] == [[1]]
