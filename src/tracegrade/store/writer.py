"""The one span writer every ingest path shares.

DuckDB allows one writing process per file, and inside it one writer keeps batches
atomic and counts honest. `write()` returns only after the batch is committed, so a
caller may acknowledge the spans as stored once it returns.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import duckdb
import numpy as np

from tracegrade.store.connection import connect
from tracegrade.store.rows import INTEGER_COLUMNS, SPAN_COLUMNS, SpanRow

_BATCH_VIEW = "_tracegrade_incoming_spans"
_INSERT = (
    f"INSERT OR IGNORE INTO spans ({', '.join(SPAN_COLUMNS)}) "
    f"SELECT {', '.join(SPAN_COLUMNS)} FROM {_BATCH_VIEW}"
)


@dataclass(frozen=True)
class WriteResult:
    """What one `write()` did: spans newly stored, and spans already there (re-deliveries)."""

    stored: int
    duplicates: int


class SpanWriter:
    """Inserts span rows into one DuckDB connection, one committed batch at a time."""

    def __init__(self, connection: duckdb.DuckDBPyConnection) -> None:
        self._connection = connection
        self._lock = threading.Lock()
        self._closed = False

    @classmethod
    def open(cls, path: str | os.PathLike[str] | None = None) -> SpanWriter:
        return cls(connect(path))

    @property
    def connection(self) -> duckdb.DuckDBPyConnection:
        return self._connection

    def write(self, rows: Sequence[SpanRow]) -> WriteResult:
        if not rows:
            return WriteResult(0, 0)
        batch = _columns(rows)
        with self._lock:
            self._connection.register(_BATCH_VIEW, batch)
            try:
                result = self._connection.execute(_INSERT).fetchall()
            finally:
                self._connection.unregister(_BATCH_VIEW)
        stored = int(result[0][0]) if result else 0
        return WriteResult(stored=stored, duplicates=len(rows) - stored)

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._connection.close()


def _columns(rows: Sequence[SpanRow]) -> dict[str, np.ndarray]:
    """Rows to one numpy array per column: DuckDB scans these far faster than tuples."""
    return {
        name: np.array(values, dtype=np.int64 if name in INTEGER_COLUMNS else object)
        for name, values in zip(SPAN_COLUMNS, zip(*rows, strict=True), strict=True)
    }
