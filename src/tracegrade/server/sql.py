"""The read-only SQL endpoint: one guarded SELECT, its answer bounded in rows, bytes and time.

The query passes tracegrade.store.readonly's guard (one read-only SELECT, run in a READ
ONLY transaction on a locked-down database) on its own cursor. Its rows are fetched and
encoded a few at a time, counting bytes, so an answer over the byte cap is refused before
it is built; one deadline covers the whole request, from its arrival to the last byte
encoded (DuckDB is interrupted at it, encoding checks it between rows).

DuckDB computes a result 2,048 rows at a time, outside its memory_limit, and cannot be
interrupted within them: those rows are in memory before the cap applies (100 rows of 10 MB
are 1 GB). Hence one query at a time, fetched a few rows at a time; the server's memory
watch (memory.py) stops a query once the process nears its budget.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import duckdb

from tracegrade.server.cancel import Cancellation
from tracegrade.server.encoding import encode_row
from tracegrade.store.archive_location import layer_archive
from tracegrade.store.readonly import (
    QueryRefused,
    QueryUnparsable,
    one_line,
    read_only_statement,
    read_only_transaction,
)
from tracegrade.store.view_functions import register_view_functions

_FETCH_ROWS = 64
_WAIT_SLICE_S = 0.1


class SqlRefused(Exception):
    """Not a query this endpoint runs (HTTP 403)."""


class SqlFailed(Exception):
    """The query is wrong, or its answer over a limit (HTTP 400, with the reason)."""


class ReadOnlyQueries:
    def __init__(
        self,
        connection: duckdb.DuckDBPyConnection,
        timeout_s: float,
        max_rows: int,
        max_bytes: int,
    ) -> None:
        self._connection = connection
        self.timeout_s = timeout_s
        self.max_rows = max_rows
        self.max_bytes = max_bytes
        self._running: dict[duckdb.DuckDBPyConnection, str] = {}
        """Each running query's cursor, and why it would have been interrupted."""
        self._lock = threading.Lock()
        self._turns = _OneAtATime()

    def run(
        self,
        sql: str,
        params: Sequence[Any] | None = None,
        limit: int | None = None,
        deadline: float | None = None,
        cancel: Cancellation | None = None,
    ) -> bytes:
        """The query's result as JSON `{columns, types, rows, truncated}`; `deadline` is a
        `time.monotonic()` value (default: the timeout from now)."""
        deadline = deadline or time.monotonic() + self.timeout_s
        statement = _guarded(sql)
        cap = min(limit or self.max_rows, self.max_rows)
        cancel = cancel or Cancellation()
        with (
            self._turns.turn(deadline, cancel, self._too_long()),
            self._cursor(deadline, cancel) as cursor,
            read_only_transaction(cursor),
        ):
            self._execute(cursor, statement, params)
            description = cursor.description or []
            rows, truncated = self._encoded_rows(cursor, cap, deadline)
        head = json.dumps(
            {"columns": [c[0] for c in description], "types": [str(c[1]) for c in description]}
        )
        tail = json.dumps({"truncated": truncated})
        return b"".join([head[:-1].encode(), b', "rows": [', b", ".join(rows), b"], ",
                         tail[1:].encode()])  # fmt: skip

    def rows(
        self, sql: str, params: Sequence[Any], deadline: float, cancel: Cancellation
    ) -> tuple[list[str], list[tuple[Any, ...]]]:
        """The columns and rows of one query of the live pages, through the same guard and
        read-only transaction as `run`; over `max_rows` rows is an error, not a cut."""
        statement = _guarded(sql)
        with self._cursor(deadline, cancel) as cursor, read_only_transaction(cursor):
            self._execute(cursor, statement, params)
            columns = [c[0] for c in cursor.description or []]
            found = cursor.fetchmany(self.max_rows + 1)
        if len(found) > self.max_rows:
            raise SqlFailed(f"a page query found over {self.max_rows} rows")
        return columns, found

    def count_spans(self) -> int:
        with self._cursor(time.monotonic() + self.timeout_s) as cursor:
            self._execute(cursor, "SELECT count(*) FROM spans", None)
            row = cursor.fetchone()
        return int(row[0]) if row else 0

    def interrupt_all(self, why: str) -> None:
        """Stop every query in progress or waiting its turn (at shutdown, or when memory runs
        short)."""
        self._turns.stop_waiting(why)
        with self._lock:
            for cursor in self._running:
                self._running[cursor] = why
                cursor.interrupt()

    @contextmanager
    def _cursor(
        self, deadline: float, cancel: Cancellation | None = None
    ) -> Iterator[duckdb.DuckDBPyConnection]:
        left = deadline - time.monotonic()
        if left <= 0:
            raise SqlFailed(self._too_long())
        cursor = self._connection.cursor()
        register_view_functions(cursor)  # temp macros are per connection, a cursor's too
        layer_archive(cursor)  # so is the temporary `spans` of hot + archive
        timer = threading.Timer(left, cursor.interrupt)
        with self._lock:
            self._running[cursor] = self._too_long()
        cancel = cancel or Cancellation()
        cancel.attach(cursor)
        timer.start()
        try:
            yield cursor
        except duckdb.InterruptException:
            raise SqlFailed(self._running[cursor]) from None
        except duckdb.Error as exc:
            raise SqlFailed(one_line(str(exc))) from None
        except UnicodeError as exc:  # a lone surrogate in a parameter or a value
            raise SqlFailed(f"not valid text: {exc}") from None
        finally:
            timer.cancel()
            cancel.attach(None)
            with self._lock:
                del self._running[cursor]
            cursor.close()

    def _execute(
        self,
        cursor: duckdb.DuckDBPyConnection,
        statement: duckdb.Statement | str,
        params: Sequence[Any] | None,
    ) -> None:
        cursor.execute(statement, list(params) if params else None)

    def _encoded_rows(
        self, cursor: duckdb.DuckDBPyConnection, cap: int, deadline: float
    ) -> tuple[list[bytes], bool]:
        """Up to `cap` rows as JSON, and whether there were more; within bytes and time.

        Each fetch takes as many rows as the bytes left would hold at the rows' size so far
        (one to begin with): Python holds about the answer cap and a row more (a fixed 64
        rows of 10 MB each had been 640 MB at once, twice: values and their JSON)."""
        encoded: list[bytes] = []
        size, want = 0, 1
        while len(encoded) <= cap:
            batch = cursor.fetchmany(min(want, cap + 1 - len(encoded)))
            if not batch:
                return encoded, False
            for row in batch:
                encoded.append(encode_row(row))
                size += len(encoded[-1]) + 2
            del batch, row
            if size > self.max_bytes:
                rows = len(encoded)
                encoded.clear()  # the error's traceback keeps this frame until a collection
                raise SqlFailed(
                    f"the answer is over the {self.max_bytes} byte limit (after {rows} rows): "
                    "select fewer rows or columns, or aggregate in SQL"
                )
            if time.monotonic() > deadline:
                raise SqlFailed(self._too_long())
            want = max(1, min(_FETCH_ROWS, (self.max_bytes - size) * len(encoded) // size))
        return encoded[:cap], True

    def _too_long(self) -> str:
        return f"the query ran longer than {self.timeout_s:g} s and was stopped"


class _OneAtATime:
    """A user's queries run one at a time: DuckDB computes up to 2,048 rows at once outside
    its memory_limit, and two queries of 100 rows of 10 MB each, at once, had taken the
    process to 2,129 MiB of a 2,048 MiB budget (one alone: 1,422 MiB). The next one waits,
    until its deadline, its cancellation, or `stop_waiting`."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._busy = False
        self._stops, self._why = 0, ""

    @contextmanager
    def turn(self, deadline: float, cancel: Cancellation, too_long: str) -> Iterator[None]:
        with self._changed:
            stops = self._stops
            while self._busy and stops == self._stops and cancel.reason is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise SqlFailed(too_long)
                self._changed.wait(min(left, _WAIT_SLICE_S))  # a cancel does not notify
            if stops != self._stops:
                raise SqlFailed(self._why)
            if cancel.reason is not None:
                raise SqlFailed(cancel.reason)
            self._busy = True
        try:
            yield
        finally:
            with self._changed:
                self._busy = False
                self._changed.notify()

    def stop_waiting(self, why: str) -> None:
        with self._changed:
            self._stops, self._why = self._stops + 1, why
            self._changed.notify_all()


def _guarded(sql: str) -> duckdb.Statement:
    try:
        return read_only_statement(sql)
    except QueryRefused as exc:
        raise SqlRefused(str(exc)) from None
    except QueryUnparsable as exc:
        raise SqlFailed(one_line(str(exc))) from None


def parse_request(body: bytes) -> tuple[str, list[Any] | None, int | None]:
    """`{"sql": "...", "params": [...]?, "limit": N?}` to its three parts."""
    try:
        document = json.loads(body)
    except (ValueError, RecursionError) as exc:
        reason = "it is nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        raise SqlFailed(
            f'the body must be JSON {{"sql": ..., "params": [...]}}: {reason}'
        ) from None
    if not isinstance(document, dict) or not isinstance(document.get("sql"), str):
        raise SqlFailed('the body must be a JSON object with "sql" (a string)')
    params, limit = document.get("params"), document.get("limit")
    if params is not None and not isinstance(params, list):
        raise SqlFailed('"params" must be a list')
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise SqlFailed('"limit" must be a positive integer')
    return document["sql"], params, limit
