"""Read-only SQL access that works on the file or through `tracegrade serve`.

Reports and `tracegrade sql` read through a `Reader`, so they work the same whether this
process opened the DuckDB file or a running server owns it and answers over HTTP.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import duckdb

Rows = list[tuple[Any, ...]]


class Reader(Protocol):
    def query(self, sql: str, params: Sequence[Any] = ()) -> tuple[list[str], Rows]:
        """Run one SELECT; the column names and the rows."""
        ...


class LocalReader:
    """A `Reader` over an open DuckDB connection."""

    def __init__(self, connection: duckdb.DuckDBPyConnection) -> None:
        self.connection = connection

    def query(self, sql: str, params: Sequence[Any] = ()) -> tuple[list[str], Rows]:
        cursor = self.connection.execute(sql, list(params))
        columns = [d[0] for d in cursor.description] if cursor.description else []
        return columns, cursor.fetchall()


def records(reader: Reader, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
    """Rows as dicts keyed by column name."""
    columns, rows = reader.query(sql, params)
    return [dict(zip(columns, row, strict=True)) for row in rows]
