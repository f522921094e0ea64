"""Read-only SQL access that works on the file or through `tracegrade serve`.

Reports and `tracegrade sql` read through a `Reader`, so they work the same whether this
process opened the DuckDB file or a running server owns it and answers over HTTP.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import duckdb

from tracegrade.store.view_functions import needs_view_functions, register_view_functions

Rows = list[tuple[Any, ...]]


class Reader(Protocol):
    def query(self, sql: str, params: Sequence[Any] = ()) -> tuple[list[str], Rows]:
        """Run one SELECT; the column names and the rows."""
        ...


class LocalReader:
    """A `Reader` over an open DuckDB connection. The view functions (the tool-call check)
    are registered on it before the first query that may call them, not before one that
    cannot (see `view_functions`)."""

    def __init__(self, connection: duckdb.DuckDBPyConnection) -> None:
        self.connection = connection
        self._functions_registered = False

    def query(self, sql: str, params: Sequence[Any] = ()) -> tuple[list[str], Rows]:
        if not self._functions_registered and needs_view_functions(self.connection, sql):
            self.checked_connection()
        cursor = self.connection.execute(sql, list(params))
        columns = [d[0] for d in cursor.description] if cursor.description else []
        return columns, cursor.fetchall()

    def checked_connection(self) -> duckdb.DuckDBPyConnection:
        """The connection with the view functions registered: for SQL run on it directly,
        which `query` cannot look at first (the traffic report's scoring SQL)."""
        if not self._functions_registered:
            register_view_functions(self.connection)
            self._functions_registered = True
        return self.connection


def records(reader: Reader, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
    """Rows as dicts keyed by column name."""
    columns, rows = reader.query(sql, params)
    return [dict(zip(columns, row, strict=True)) for row in rows]
