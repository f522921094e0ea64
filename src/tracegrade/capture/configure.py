"""`configure()`: in-process capture in one call."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider

from tracegrade.capture.exporter import DuckDBSpanExporter, ExportStats
from tracegrade.capture.processor import BlockingSpanProcessor

logger = logging.getLogger("tracegrade.capture")

CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"


@dataclass(frozen=True)
class CaptureStats:
    stored: int
    duplicates: int
    failed: int
    dropped: int

    @property
    def lost(self) -> int:
        """Spans that never reached the database: dropped by the queue or failed to write."""
        return self.failed + self.dropped


class Capture:
    """What `configure()` installed: flush it after a turn, read its counts, shut it down."""

    def __init__(
        self,
        provider: TracerProvider,
        exporter: DuckDBSpanExporter,
        processor: BlockingSpanProcessor,
    ) -> None:
        self.provider = provider
        self.exporter = exporter
        self.processor = processor

    def flush(self, timeout_s: float = 30.0) -> bool:
        """Wait until every span ended so far is committed to the database."""
        return self.processor.force_flush(int(timeout_s * 1000))

    def stats(self) -> CaptureStats:
        s: ExportStats = self.exporter.stats
        return CaptureStats(s.stored, s.duplicates, s.failed, self.processor.dropped)

    def shutdown(self) -> None:
        """Flush, stop the worker and close the database. A second call does nothing."""
        self.processor.shutdown()
        lost = self.stats().lost
        if lost:
            logger.warning("tracegrade: %d spans were not stored", lost)


def configure(
    db_path: str | os.PathLike[str] | None = None,
    *,
    service_name: str | None = None,
    capture_content: bool = False,
    set_global: bool = True,
    max_queue_size: int = 65_536,
) -> Capture:
    """Capture this process's spans into a DuckDB file.

    Installs a `TracerProvider` whose processor blocks instead of dropping when the
    database falls behind. If the application already installed an SDK provider, the
    processor is added to that one (OTel keeps the first global provider).
    `capture_content=True` turns on ADK's span content capture (tool arguments and
    results, messages) through its environment switch, unless the variable is already set.
    """
    if capture_content:
        os.environ.setdefault(CONTENT_ENV, "SPAN_ONLY")
    exporter = DuckDBSpanExporter(db_path)
    processor = BlockingSpanProcessor(exporter, max_queue_size=max_queue_size)
    provider = _provider(service_name, set_global)
    provider.add_span_processor(processor)
    return Capture(provider, exporter, processor)


def _provider(service_name: str | None, set_global: bool) -> TracerProvider:
    current = trace.get_tracer_provider()
    if set_global and isinstance(current, TracerProvider):
        return current
    resource = Resource.create({"service.name": service_name} if service_name else {})
    provider = TracerProvider(resource=resource)
    if set_global:
        trace.set_tracer_provider(provider)
    return provider
