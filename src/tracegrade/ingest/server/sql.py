"""The read-only SQL endpoint: one SELECT, on its own cursor, with a timeout and a row cap.

Three guards, each enough on its own for a different threat: only a single statement of
type SELECT is run; the database has external access disabled and its configuration
locked (so `read_csv('/etc/passwd')`, ATTACH or COPY fail even inside a SELECT); and the
query runs in a transaction that is rolled back, so nothing it might change persists.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import json
import math
import threading
import uuid
from collections.abc import Sequence
from typing import Any

import duckdb

from tracegrade.store.readonly import QueryRefused, QueryUnparsable, read_only_statement


class SqlRefused(Exception):
    """Not a query this endpoint runs (HTTP 403)."""


class SqlFailed(Exception):
    """DuckDB could not run the query (HTTP 400, with DuckDB's message)."""


def lock_down(connection: duckdb.DuckDBPyConnection) -> None:
    """No file, network or extension access from SQL any more, and no way to turn it back on."""
    connection.execute("SET enable_external_access = false")
    connection.execute("SET lock_configuration = true")


def single_select(sql: str) -> duckdb.Statement:
    try:
        return read_only_statement(sql)
    except QueryRefused as exc:
        raise SqlRefused(str(exc)) from None
    except QueryUnparsable as exc:
        raise SqlFailed(str(exc)) from None


class ReadOnlyQueries:
    def __init__(
        self, connection: duckdb.DuckDBPyConnection, timeout_s: float, max_rows: int
    ) -> None:
        self._connection = connection
        self._timeout_s = timeout_s
        self.max_rows = max_rows
        self._running: set[duckdb.DuckDBPyConnection] = set()
        self._lock = threading.Lock()

    def run(self, sql: str, params: Sequence[Any] | None = None, limit: int | None = None) -> bytes:
        """The query's result as JSON `{columns, types, rows, truncated}`."""
        statement = single_select(sql)
        cap = min(limit or self.max_rows, self.max_rows)
        description, rows = self._execute(statement, params, cap + 1)
        return _result_json(
            columns=[column[0] for column in description],
            types=[str(column[1]) for column in description],
            rows=rows[:cap],
            truncated=len(rows) > cap,
        )

    def count_spans(self) -> int:
        _, rows = self._execute("SELECT count(*) FROM spans", None, 1)
        return int(rows[0][0])

    def interrupt_all(self) -> None:
        """Stop every query in progress (at shutdown, so closing the database is not held up)."""
        with self._lock:
            for cursor in self._running:
                cursor.interrupt()

    def _execute(
        self, statement: duckdb.Statement | str, params: Sequence[Any] | None, max_rows: int
    ) -> tuple[list[Any], list[tuple[Any, ...]]]:
        cursor = self._connection.cursor()
        timer = threading.Timer(self._timeout_s, cursor.interrupt)
        with self._lock:
            self._running.add(cursor)
        try:
            cursor.execute("BEGIN TRANSACTION")
            timer.start()
            cursor.execute(statement, list(params) if params else None)
            rows = cursor.fetchmany(max_rows)
            return list(cursor.description or []), rows
        except duckdb.InterruptException:
            raise SqlFailed(
                f"the query ran longer than {self._timeout_s:g} s and was stopped"
            ) from None
        except duckdb.Error as exc:
            raise SqlFailed(str(exc)) from None
        finally:
            timer.cancel()
            with self._lock:
                self._running.discard(cursor)
            cursor.close()  # rolls the transaction back


def _result_json(**document: Any) -> bytes:
    try:
        return json.dumps(document, default=_plain, allow_nan=False).encode()
    except ValueError:  # NaN or infinity somewhere: JSON has no such numbers
        return json.dumps(_finite(document), default=_plain).encode()


def _plain(value: Any) -> Any:
    """DuckDB's Python values that JSON lacks, as the nearest JSON value."""
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if isinstance(value, bytes | bytearray | memoryview):
        return base64.b64encode(bytes(value)).decode()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    return str(value)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


def parse_request(body: bytes) -> tuple[str, list[Any] | None, int | None]:
    """`{"sql": "...", "params": [...]?, "limit": N?}` to its three parts."""
    try:
        document = json.loads(body)
    except ValueError as exc:
        raise SqlFailed(f'the body must be JSON {{"sql": ..., "params": [...]}}: {exc}') from None
    if not isinstance(document, dict) or not isinstance(document.get("sql"), str):
        raise SqlFailed('the body must be a JSON object with "sql" (a string)')
    params, limit = document.get("params"), document.get("limit")
    if params is not None and not isinstance(params, list):
        raise SqlFailed('"params" must be a list')
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise SqlFailed('"limit" must be a positive integer')
    return document["sql"], params, limit
