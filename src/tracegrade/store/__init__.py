"""The DuckDB store: connection, recorded migrations, views, and the one span writer.

The names below load on first use: a read command opens the file through `connection` and
must not pay for the writer's numpy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from tracegrade.store.connection import DB_ENV, DEFAULT_DB, connect, resolve_path
    from tracegrade.store.reader import LocalReader, Reader, records
    from tracegrade.store.rows import SPAN_COLUMNS, SpanRow
    from tracegrade.store.writer import SpanWriter, WriteResult

_LAZY = {
    "DB_ENV": "tracegrade.store.connection",
    "DEFAULT_DB": "tracegrade.store.connection",
    "connect": "tracegrade.store.connection",
    "resolve_path": "tracegrade.store.connection",
    "LocalReader": "tracegrade.store.reader",
    "Reader": "tracegrade.store.reader",
    "records": "tracegrade.store.reader",
    "SPAN_COLUMNS": "tracegrade.store.rows",
    "SpanRow": "tracegrade.store.rows",
    "SpanWriter": "tracegrade.store.writer",
    "WriteResult": "tracegrade.store.writer",
}

__all__ = [
    "DB_ENV",
    "DEFAULT_DB",
    "SPAN_COLUMNS",
    "LocalReader",
    "Reader",
    "SpanRow",
    "SpanWriter",
    "WriteResult",
    "connect",
    "records",
    "resolve_path",
]

__getattr__ = lazy_attributes(__name__, _LAZY)
