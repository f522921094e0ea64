"""`DuckDBSpanExporter`: an OTel `SpanExporter` that writes finished spans into DuckDB.

It runs inside the user's agent, so it never raises, prints or blocks on its own
account: a failed batch is logged and reported as FAILURE, and counted.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from tracegrade.capture.convert import RowBuilder
from tracegrade.store.writer import SpanWriter

logger = logging.getLogger("tracegrade.capture")


@dataclass(frozen=True)
class ExportStats:
    """Spans this exporter stored, found already stored, and failed to store."""

    stored: int = 0
    duplicates: int = 0
    failed: int = 0


class DuckDBSpanExporter(SpanExporter):
    """Writes spans to a DuckDB file (default `tracegrade.duckdb` or `$TRACEGRADE_DB`).

    Pass `writer` to share one `SpanWriter` with other ingest paths in this process.
    Opening the file happens here, so a locked or unwritable database is reported when
    the exporter is made, not lost later.
    """

    def __init__(
        self, path: str | os.PathLike[str] | None = None, *, writer: SpanWriter | None = None
    ) -> None:
        self._owns_writer = writer is None
        self._writer = writer if writer is not None else SpanWriter.open(path)
        self._rows = RowBuilder("exporter")
        self._lock = threading.Lock()
        self._stats = ExportStats()
        self._shut_down = False

    @property
    def writer(self) -> SpanWriter:
        return self._writer

    @property
    def stats(self) -> ExportStats:
        return self._stats

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        if self._shut_down:
            self._count(failed=len(spans))
            return SpanExportResult.FAILURE
        try:
            result = self._writer.write(self._rows.rows(spans))
        except Exception:
            logger.exception("tracegrade: could not store %d spans", len(spans))
            self._count(failed=len(spans))
            return SpanExportResult.FAILURE
        self._count(stored=result.stored, duplicates=result.duplicates)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        if self._shut_down:
            return
        self._shut_down = True
        if self._owns_writer:
            try:
                self._writer.close()
            except Exception:
                logger.exception("tracegrade: closing the database failed")

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        # Every export is committed before it returns: nothing is buffered here.
        return True

    def _count(self, stored: int = 0, duplicates: int = 0, failed: int = 0) -> None:
        with self._lock:
            s = self._stats
            self._stats = ExportStats(
                s.stored + stored, s.duplicates + duplicates, s.failed + failed
            )
