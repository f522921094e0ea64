"""The one span writer every ingest path shares.

DuckDB allows one writing process per file, and inside it one writer keeps batches
atomic and counts honest. `write()` returns only after the batch is committed, so a
caller may acknowledge the spans as stored once it returns.

A writer belongs to the process that opened it. A forked child (gunicorn --preload,
multiprocessing with fork) inherits a copy of the connection but not DuckDB's file lock
or threads: writing through it, or even letting it close, would checkpoint into the
parent's file behind the parent's back (measured: a child's normal exit deleted the
parent's write-ahead log). So in a child `write()` raises and the connection is kept
alive, untouched, until the child ends.

After each commit the writer hands the traces the batch touched to its `FactKeeper`
(store.turn_facts), which computes their turn facts on a thread of its own: ingest does
not wait for them, and `close()` computes the last ones before the file closes.
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import duckdb
import numpy as np
import pyarrow as pa

from tracegrade._fork import in_child_after_fork
from tracegrade.errors import DatabaseError
from tracegrade.store.archive_location import hot_spans
from tracegrade.store.archived import ArchivedSpans
from tracegrade.store.batch import arrow_batch, without
from tracegrade.store.connection import connect
from tracegrade.store.rows import SPAN_COLUMNS, SpanRow
from tracegrade.store.turn_facts import FactKeeper

_BATCH_VIEW = "_tracegrade_incoming_spans"
# `attrs`, the attributes the views read, is stored with each span so that no query parses
# the JSON (queries/macros/00_span_attrs.sql). The batch brings it (store.batch); a row it
# could not bring it for is parsed here, and only such rows: CASE runs each branch on the
# rows that take it.
_ATTRS = "CASE WHEN attrs IS NULL THEN tg_span_attrs(attributes) ELSE attrs END"
_SELECT = (
    f"({', '.join(SPAN_COLUMNS)}, attrs) "  # noqa: S608 — constants
    f"SELECT {', '.join(SPAN_COLUMNS)}, {_ATTRS} FROM {_BATCH_VIEW}"
)


@dataclass(frozen=True)
class WriteResult:
    """What one `write()` did: spans newly stored, and spans already there (re-deliveries)."""

    stored: int
    duplicates: int


class SpanWriter:
    """Inserts span rows into one DuckDB connection, one committed batch at a time."""

    def __init__(self, connection: duckdb.DuckDBPyConnection, *, keep_facts: bool = True) -> None:
        self._connection = connection
        # The table by its full name: with an archive, `spans` is a view of hot + archive.
        table = hot_spans(connection)
        self._insert_sql = f"INSERT INTO {table} {_SELECT}"
        self._insert_new_only_sql = f"INSERT OR IGNORE INTO {table} {_SELECT}"
        self._archived = ArchivedSpans(connection)
        self._lock = threading.Lock()
        self._closed = False
        self._pid = os.getpid()
        self._facts = FactKeeper(connection) if keep_facts else None
        in_child_after_fork(self._pin_in_child)

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str] | None = None,
        *,
        discard_damaged_log: bool = False,
        keep_facts: bool = True,
    ) -> SpanWriter:
        return cls(connect(path, discard_damaged_log=discard_damaged_log), keep_facts=keep_facts)

    @property
    def connection(self) -> duckdb.DuckDBPyConnection:
        return self._connection

    @property
    def commit_lock(self) -> threading.Lock:
        """Held while a batch commits: an archiving pass commits under it too."""
        return self._lock

    @property
    def archived(self) -> ArchivedSpans:
        """What the archive holds: an archiving pass raises its horizon as it commits."""
        return self._archived

    @property
    def inherited(self) -> bool:
        """True in a forked child: the writer is its parent's and cannot be used here."""
        return os.getpid() != self._pid

    def write(self, rows: Sequence[SpanRow]) -> WriteResult:
        if self.inherited:
            raise DatabaseError(
                f"this span writer belongs to process {self._pid}, not to its forked child "
                f"{os.getpid()}: DuckDB lets one process write a file"
            )
        if not rows:
            return WriteResult(0, 0)
        batch = arrow_batch(rows)
        with self._lock:
            self._connection.register(_BATCH_VIEW, batch)
            try:
                stored = self._insert_new(rows, batch)
            finally:
                self._connection.unregister(_BATCH_VIEW)
        if stored and self._facts is not None:
            self._facts.touched(row.trace_id for row in rows)
        return WriteResult(stored=stored, duplicates=len(rows) - stored)

    def flush_facts(self, timeout: float | None = None) -> bool:
        """Wait until the turn facts of every trace stored so far are computed (scoring reads
        them when fresh, and rebuilds from spans otherwise); False if `timeout` ran out."""
        return self._facts.flush(timeout) if self._facts is not None else True

    def _insert_new(self, rows: Sequence[SpanRow], batch: pa.Table) -> int:
        """Insert the batch but the spans the archive already holds (see `archived`)."""
        end_ns = np.fromiter((row.end_ns for row in rows), np.int64, len(rows))
        known = self._archived.known(self._connection, _BATCH_VIEW, end_ns)
        if known:
            drop = np.array([(row.trace_id, row.span_id) in known for row in rows], dtype=bool)
            if drop.all():
                return 0
            self._connection.unregister(_BATCH_VIEW)
            self._connection.register(_BATCH_VIEW, without(batch, drop))
        return self._insert()

    def _insert(self) -> int:
        # DuckDB plans INSERT OR IGNORE as a MERGE that joins the batch against the key
        # columns of every stored span: per 512-span batch, measured 17 ms with 100k spans
        # stored and 143 ms with 2M, growing with the table. A plain INSERT checks the
        # primary key's index instead (17 ms at 2M). Re-sent spans are rare, so the plain
        # insert goes first; a batch holding a stored span fails whole (statements are
        # atomic) and is merged instead.
        try:
            result = self._connection.execute(self._insert_sql).fetchall()
        except duckdb.ConstraintException:
            result = self._connection.execute(self._insert_new_only_sql).fetchall()
        return int(result[0][0]) if result else 0

    def close(self) -> None:
        if self.inherited:
            return  # the parent's connection: closing it here would checkpoint its file
        if self._facts is not None:
            self._facts.close()
        with self._lock:
            if not self._closed:
                self._closed = True
                self._connection.close()

    def _pin_in_child(self) -> None:
        # One reference that is never released: the connection must not be destroyed
        # (and checkpoint) when the child's interpreter clears its objects at exit.
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(self._connection))
