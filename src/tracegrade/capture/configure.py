"""`configure()`: in-process capture in one call, into DuckDB or over OTLP."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SpanExporter

from tracegrade.capture.exporter import DuckDBSpanExporter
from tracegrade.capture.processor import BlockingSpanProcessor

logger = logging.getLogger("tracegrade.capture")

CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"


@dataclass(frozen=True)
class CaptureStats:
    stored: int | None
    """Spans newly stored (DuckDB), or None when a remote receiver stores them."""
    duplicates: int | None
    failed: int
    dropped: int

    @property
    def lost(self) -> int:
        """Spans that never reached their destination: dropped by the queue or failed."""
        return self.failed + self.dropped


class Capture:
    """What `configure()` installed: flush it after a turn, read its counts, shut it down."""

    def __init__(
        self, provider: TracerProvider, exporter: SpanExporter, processor: BlockingSpanProcessor
    ) -> None:
        self.provider = provider
        self.exporter = exporter
        self.processor = processor

    def flush(self, timeout_s: float = 30.0) -> bool:
        """Wait until every span ended so far is written (or sent)."""
        return self.processor.force_flush(int(timeout_s * 1000))

    def stats(self) -> CaptureStats:
        failed, dropped = self.processor.failed, self.processor.dropped
        if isinstance(self.exporter, DuckDBSpanExporter):
            s = self.exporter.stats
            return CaptureStats(s.stored, s.duplicates, s.failed, dropped)  # it knows which rows
        return CaptureStats(None, None, failed, dropped)

    def shutdown(self) -> None:
        """Flush, stop the worker and close the destination. A second call does nothing."""
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
    exporter = DuckDBSpanExporter(db_path)
    return _install(exporter, service_name, capture_content, set_global, max_queue_size)


def configure_otlp(
    endpoint: str,
    *,
    headers: dict[str, str] | None = None,
    service_name: str | None = None,
    capture_content: bool = False,
    set_global: bool = True,
    max_queue_size: int = 65_536,
) -> Capture:
    """Send this process's spans over OTLP/HTTP (protobuf) to `endpoint` — a Collector or
    `tracegrade serve` — instead of a local file. `endpoint` is the base URL, e.g.
    http://127.0.0.1:4318; spans go to its /v1/traces."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    exporter = OTLPSpanExporter(endpoint=endpoint.rstrip("/") + "/v1/traces", headers=headers)
    return _install(exporter, service_name, capture_content, set_global, max_queue_size)


def _install(
    exporter: SpanExporter,
    service_name: str | None,
    capture_content: bool,
    set_global: bool,
    max_queue_size: int,
) -> Capture:
    if capture_content:
        os.environ.setdefault(CONTENT_ENV, "SPAN_ONLY")
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
