"""Keeping a span that arrives again after it was archived from being stored again.

The hot table's key drops a re-sent span that is still hot; once archived, the span is in
a Parquet file, and a per-span probe of the archive would cost far more than the insert
(µs a span). What makes the check cheap: an archived span ended before its pass's cutoff,
and the manifest records the span end times each file covers (`min_end_ns`, `max_end_ns`).
So only a span ending no later than the latest archived end (the horizon) can be in the
archive, and only in the files whose range holds its end. Live traffic ends after the
horizon (by `--retain-days`), so for it the check is one comparison per span; a re-sent
batch of old spans reads the key columns of the few files that can hold them.

The horizon is read once and raised by the archiving pass before each batch commits,
under the writer's lock, so the writer never inserts a span a committed file holds.
Only this database's own files are checked: a trace's spans reach one shard (routed by
trace id), so another shard's files do not hold them. A database that an older tracegrade
stored re-sent spans into holds such copies hot: `drop_copies` deletes them before an
archiving pass, rather than archiving them twice.
"""

from __future__ import annotations

import contextlib
import threading

import duckdb
import numpy as np

from tracegrade._resources import sql_files
from tracegrade.store.archive_location import hot_spans, location


class ArchivedSpans:
    """What this database has archived, as far as the span writer needs to know."""

    def __init__(self, connection: duckdb.DuckDBPyConnection) -> None:
        self._horizon = _horizon(connection)
        self._probe_files = _sql("04_probe_files")

    @property
    def horizon(self) -> int | None:
        """No archived span ended later than this (Unix epoch ns); None: nothing archived."""
        return self._horizon

    def raise_horizon(self, end_ns: int) -> None:
        """Called before a batch whose spans end by `end_ns` commits (over-estimating is
        safe: it only makes the writer check more spans)."""
        self._horizon = end_ns if self._horizon is None else max(self._horizon, end_ns)

    def known(
        self, connection: duckdb.DuckDBPyConnection, incoming: str, end_ns: np.ndarray
    ) -> set[tuple[str, str]]:
        """Keys of the incoming spans (the relation `incoming`, its `end_ns` column given
        too) that the archive already holds."""
        if self._horizon is None or not len(end_ns):
            return set()
        old = end_ns[end_ns <= self._horizon]
        if not len(old):
            return set()
        files = self._files(connection, int(old.min()), int(old.max()))
        if not files:
            return set()
        query = _sql("05_archived_keys").format(incoming=incoming)
        return {(t, s) for t, s in connection.execute(query, [files]).fetchall()}

    def _files(self, connection: duckdb.DuckDBPyConnection, low: int, high: int) -> list[str]:
        where = location(connection)
        if where is None:
            return []
        connection.execute("SET VARIABLE tg_probe_min_end = ?", [low])
        connection.execute("SET VARIABLE tg_probe_max_end = ?", [high])
        files = []
        for path, tmp_path in connection.execute(self._probe_files).fetchall():
            # Published, or still waiting in staging after a crash (a file neither place is
            # lost: recovery reports it, and its spans may then be stored again).
            for candidate in (where.root / path, where.root / tmp_path):
                if candidate.exists():
                    files.append(str(candidate))
                    break
        return files


def drop_copies(
    connection: duckdb.DuckDBPyConnection,
    archived: ArchivedSpans,
    commit_lock: threading.Lock | None = None,
) -> int:
    """Delete the hot spans a committed file already holds; how many there were."""
    if archived.horizon is None:
        return 0
    hot = hot_spans(connection)
    connection.execute(
        f"CREATE OR REPLACE TEMP TABLE archive_doubt AS SELECT trace_id, span_id, end_ns "  # noqa: S608 — the catalog's name
        f"FROM {hot} WHERE end_ns <= ?",
        [archived.horizon],
    )
    (end_ns,) = connection.execute("SELECT end_ns FROM archive_doubt").fetchnumpy().values()
    copies = sorted(archived.known(connection, "archive_doubt", np.asarray(end_ns)))
    connection.execute("DROP TABLE archive_doubt")
    if copies:
        with commit_lock or contextlib.nullcontext():
            connection.executemany(
                f"DELETE FROM {hot} WHERE trace_id = ? AND span_id = ?",  # noqa: S608 — the catalog's name
                [list(key) for key in copies],
            )
    return len(copies)


def _horizon(connection: duckdb.DuckDBPyConnection) -> int | None:
    exists = connection.execute(
        "SELECT 1 FROM duckdb_columns() WHERE table_name = 'archive_manifest' "
        "AND column_name = 'max_end_ns' AND database_name = current_database()"
    ).fetchall()
    if not exists:
        return None  # a bare connection, not a tracegrade database
    ((horizon,),) = connection.execute("SELECT max(max_end_ns) FROM archive_manifest").fetchall()
    return None if horizon is None else int(horizon)


def _sql(stem: str) -> str:
    (path,) = [p for p in sql_files("archive") if p.stem == stem]
    return path.read_text()
