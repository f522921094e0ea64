"""The DuckDB store: connection, recorded migrations, views, and the one span writer."""

from tracegrade.store.connection import DB_ENV, DEFAULT_DB, connect, resolve_path
from tracegrade.store.reader import LocalReader, Reader, records
from tracegrade.store.rows import SPAN_COLUMNS, SpanRow
from tracegrade.store.writer import SpanWriter, WriteResult

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
