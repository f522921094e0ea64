"""`serve --archive`: a thread that moves old traces into the Parquet archive now and then.

Each pass runs on its own cursor of the server's database and takes the writer's lock only
around each batch's commit (the manifest row and the hot delete), so ingest waits for a
commit, not for the Parquet file being written. A pass that fails is logged as an error at
every interval, and tried again: a batch is whole or not at all (its spans are in the hot
table or in a committed file the next pass's recovery publishes), and a failure that needs
the user (a committed file missing, the shard claimed by another database) says so and
what to do, and archiving resumes once it is fixed.
"""

from __future__ import annotations

import logging
import threading

import duckdb

from tracegrade.errors import TracegradeError
from tracegrade.store import SpanWriter
from tracegrade.store.archive import archive_pass

logger = logging.getLogger("tracegrade.serve")


class ArchiveThread:
    def __init__(self, writer: SpanWriter, retain_days: float, interval_s: float) -> None:
        self._writer = writer
        self._retain_days = retain_days
        self._interval_s = interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tracegrade-archive", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float) -> None:
        """Let a pass in progress finish its batch (each batch is whole or not at all)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _run(self) -> None:
        cursor = self._writer.connection.cursor()
        try:
            while not self._stop.wait(self._interval_s):
                self._pass(cursor)
        finally:
            cursor.close()

    def _pass(self, cursor: duckdb.DuckDBPyConnection) -> None:
        try:
            done = archive_pass(cursor, self._retain_days, writer=self._writer)
        except TracegradeError as exc:
            logger.error("archiving stopped, retrying every %gs: %s", self._interval_s, exc)
            return
        except (duckdb.Error, OSError) as exc:
            logger.error(
                "an archiving pass failed, retrying every %gs (every span is in the database "
                "or in a committed file): %s",
                self._interval_s,
                exc,
            )
            return
        if done.spans:
            logger.info("archived %d spans into %d files", done.spans, done.files)
