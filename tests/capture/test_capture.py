"""The exporter and processor inside a user's agent: never raise, never lose, count drops."""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from tests.support.span_factory import adk_like_spans
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor, DuckDBSpanExporter
from tracegrade.store import SpanWriter


def _count(writer: SpanWriter) -> int:
    return int(writer.connection.execute("SELECT count(*) FROM spans").fetchall()[0][0])


def test_a_span_delivered_twice_is_stored_once(writer: SpanWriter) -> None:
    spans = adk_like_spans(3)
    exporter = DuckDBSpanExporter(writer=writer, batch_rows=1)  # write on every export
    assert exporter.export(spans) is SpanExportResult.SUCCESS
    assert exporter.export(spans[:4] + spans[:4]) is SpanExportResult.SUCCESS
    assert _count(writer) == len(spans)
    assert (exporter.stats.stored, exporter.stats.duplicates) == (len(spans), 8)


def test_export_never_raises_into_the_host(
    writer: SpanWriter, caplog: pytest.LogCaptureFixture
) -> None:
    exporter = DuckDBSpanExporter(writer=writer)
    writer.close()  # the database went away under the exporter
    with caplog.at_level(logging.ERROR, logger="tracegrade.capture"):
        exporter.export(adk_like_spans(1))
        assert exporter.force_flush() is False
    assert exporter.stats.failed == 5
    assert "could not store 5 spans" in caplog.text


@costly
def test_shutdown_twice_is_harmless_and_flushes(db_path: Path) -> None:
    exporter = DuckDBSpanExporter(db_path)
    processor = BlockingSpanProcessor(exporter, schedule_delay_s=30)
    for span in adk_like_spans(4):
        processor.on_end(span)
    processor.shutdown()
    processor.shutdown()
    assert exporter.export(adk_like_spans(1)) is SpanExportResult.FAILURE
    reopened = SpanWriter.open(db_path)
    assert _count(reopened) == 20
    reopened.close()


class SlowExporter(SpanExporter):
    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s
        self.received = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        time.sleep(self.delay_s)
        self.received += len(spans)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None


def _end_all(processor: SpanProcessor, spans: list[ReadableSpan]) -> None:
    for span in spans:
        processor.on_end(span)


def _burst(processor: SpanProcessor, spans: list[ReadableSpan]) -> None:
    # Several producer threads, as an agent with parallel tools would have.
    chunks = [spans[i::4] for i in range(4)]
    threads = [threading.Thread(target=_end_all, args=(processor, c)) for c in chunks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def test_a_slow_database_loses_nothing_where_the_sdk_processor_drops() -> None:
    spans = adk_like_spans(400)  # 2000 spans
    sdk_exporter, ours_exporter = SlowExporter(0.02), SlowExporter(0.02)
    # As a SpanProcessor: the SDK leaves BatchSpanProcessor.shutdown unannotated.
    sdk: SpanProcessor = BatchSpanProcessor(
        sdk_exporter, max_queue_size=64, max_export_batch_size=32
    )
    ours = BlockingSpanProcessor(ours_exporter, max_queue_size=64, max_batch_size=32)
    _burst(sdk, spans)
    _burst(ours, spans)
    sdk.shutdown()
    ours.shutdown()
    assert sdk_exporter.received < len(spans)  # the SDK's processor dropped some
    assert ours_exporter.received == len(spans)
    assert ours.dropped == 0


@costly
def test_drops_after_the_wait_limit_are_counted_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    stuck = SlowExporter(0.5)
    processor = BlockingSpanProcessor(stuck, max_queue_size=2, max_batch_size=1, max_wait_s=0.01)
    with caplog.at_level(logging.WARNING, logger="tracegrade.capture"):
        for span in adk_like_spans(2):
            processor.on_end(span)
        processor.shutdown()
    assert processor.dropped > 0
    assert stuck.received + processor.dropped == 10
    assert "dropped a span" in caplog.text


def test_exports_are_gathered_into_bigger_writes(writer: SpanWriter) -> None:
    exporter = DuckDBSpanExporter(writer=writer, batch_rows=12, max_delay_s=60)
    exporter.export(adk_like_spans(2, seed=1))  # 10 rows wait
    assert _count(writer) == 0
    exporter.export(adk_like_spans(1, seed=2))  # 15 >= 12: all written at once
    assert _count(writer) == 15
    exporter.export(adk_like_spans(1, seed=3))
    assert exporter.force_flush()
    assert _count(writer) == 20


def test_force_flush_waits_for_the_database(writer: SpanWriter) -> None:
    processor = BlockingSpanProcessor(DuckDBSpanExporter(writer=writer), schedule_delay_s=60)
    for span in adk_like_spans(10):
        processor.on_end(span)
    assert processor.force_flush(5_000)
    assert _count(writer) == 50
    processor.shutdown()


CONFIGURE_SCRIPT = """
import asyncio, sys
import tracegrade
capture = tracegrade.configure(sys.argv[1], service_name="weather-svc")
from google.adk.runners import InMemoryRunner
from google.genai import types
sys.path.insert(0, sys.argv[2])
from support.scenarios import SCENARIOS

async def main():
    runner = InMemoryRunner(agent=SCENARIOS["parallel_calls"].build(), app_name="app")
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    message = types.Content(role="user", parts=[types.Part(text="Weather in Paris, in F?")])
    async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message):
        pass
asyncio.run(main())
capture.shutdown()
print(capture.stats())
"""


def test_configure_captures_a_real_agent_in_a_fresh_process(tmp_path: Path) -> None:
    db = tmp_path / "runs.duckdb"
    done = subprocess.run(
        [sys.executable, "-c", CONFIGURE_SCRIPT, str(db), str(Path(__file__).parents[1])],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "dropped=0" in done.stdout
    writer = SpanWriter.open(db)
    rows = writer.connection.execute(
        "SELECT root_agent, tool_calls, llm_calls, total_tokens FROM turns"
    ).fetchall()
    services = writer.connection.execute("SELECT DISTINCT service_name FROM spans").fetchall()
    writer.close()
    assert rows == [("weather_agent", 3, 3, 563)]
    assert services == [("weather-svc",)]


def test_configure_adds_to_a_provider_the_app_already_installed() -> None:
    script = (
        "from opentelemetry import trace\n"
        "from opentelemetry.sdk.trace import TracerProvider\n"
        "mine = TracerProvider(); trace.set_tracer_provider(mine)\n"
        "import sys, tracegrade\n"
        "capture = tracegrade.configure(sys.argv[1])\n"
        "assert capture.provider is mine\n"
        "with trace.get_tracer('t').start_as_current_span('x'): pass\n"
        "capture.shutdown()\n"
        "print(capture.stats().stored)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, ":memory:"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"


@costly
def test_provider_shutdown_flushes_the_processor(db_path: Path) -> None:
    provider = TracerProvider()
    exporter = DuckDBSpanExporter(db_path)
    provider.add_span_processor(BlockingSpanProcessor(exporter, schedule_delay_s=60))
    with provider.get_tracer("t").start_as_current_span("one"):
        pass
    provider.shutdown()
    assert exporter.stats.stored == 1
