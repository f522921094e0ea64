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

from tracegrade._fork import in_child_after_fork
from tracegrade.errors import DatabaseError
from tracegrade.store.archive_location import hot_spans
from tracegrade.store.archived import ArchivedSpans
from tracegrade.store.connection import connect
from tracegrade.store.rows import INTEGER_COLUMNS, SPAN_COLUMNS, SpanRow
from tracegrade.store.turn_facts import FactKeeper

_BATCH_VIEW = "_tracegrade_incoming_spans"
# `attrs`, the attributes the views read, is parsed out of the JSON here, once per span, in
# DuckDB (~1.5 µs a span), so that no query parses it again (queries/macros/00_span_attrs.sql).
_SELECT = (
    f"({', '.join(SPAN_COLUMNS)}, attrs) "  # noqa: S608 — constants
    f"SELECT {', '.join(SPAN_COLUMNS)}, tg_span_attrs(attributes) FROM {_BATCH_VIEW}"
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
        batch = _columns(rows)
        with self._lock:
            self._connection.register(_BATCH_VIEW, batch)
            try:
                stored = self._insert_new(batch)
            finally:
                self._connection.unregister(_BATCH_VIEW)
        if stored and self._facts is not None:
            self._facts.touched(batch["trace_id"])
        return WriteResult(stored=stored, duplicates=len(rows) - stored)

    def flush_facts(self, timeout: float | None = None) -> bool:
        """Wait until the turn facts of every trace stored so far are computed (scoring reads
        them when fresh, and rebuilds from spans otherwise); False if `timeout` ran out."""
        return self._facts.flush(timeout) if self._facts is not None else True

    def _insert_new(self, batch: dict[str, np.ndarray]) -> int:
        """Insert the batch but the spans the archive already holds (see `archived`)."""
        known = self._archived.known(self._connection, _BATCH_VIEW, batch["end_ns"])
        if known:
            keys = zip(batch["trace_id"], batch["span_id"], strict=True)
            keep = np.array([key not in known for key in keys], dtype=bool)
            if not keep.any():
                return 0
            self._connection.unregister(_BATCH_VIEW)
            self._connection.register(_BATCH_VIEW, {k: v[keep] for k, v in batch.items()})
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


def _columns(rows: Sequence[SpanRow]) -> dict[str, np.ndarray]:
    """Rows to one numpy array per column: DuckDB scans these far faster than tuples."""
    return {
        name: np.array(values, dtype=np.int64 if name in INTEGER_COLUMNS else object)
        for name, values in zip(SPAN_COLUMNS, zip(*rows, strict=True), strict=True)
    }
