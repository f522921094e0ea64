"""A batching span processor that waits rather than drops.

The SDK's `BatchSpanProcessor` discards spans once its queue is full, and a discarded
span is a wrong trajectory. This processor exports in batches on a worker thread like
the SDK's, but when the queue is full `on_end` waits for room. It gives up on a span only
after `max_wait_s` (None: never), and every span given up is counted and logged.

A forked child (gunicorn --preload, multiprocessing with fork) gets none of the parent's
threads: as the SDK's batch processor does, the processor starts afresh in the child,
with an empty queue and a worker of its own, so `on_end` never waits on a worker that is
gone. What the exporter then does with the child's spans is its own affair: OTLP sends
them; DuckDB refuses them (see `DuckDBSpanExporter`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque

from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from tracegrade._fork import in_child_after_fork

logger = logging.getLogger("tracegrade.capture")


class BlockingSpanProcessor(SpanProcessor):
    def __init__(
        self,
        exporter: SpanExporter,
        *,
        max_queue_size: int = 65_536,
        max_batch_size: int = 4_096,
        schedule_delay_s: float = 0.2,
        max_wait_s: float | None = None,
    ) -> None:
        self._exporter = exporter
        self._max_queue = max_queue_size
        self._max_batch = min(max_batch_size, max_queue_size)  # else a full queue waits
        self._delay = schedule_delay_s
        self._max_wait = max_wait_s
        self._stopping = False
        self._start()
        in_child_after_fork(self._restart_in_child)

    def _start(self) -> None:
        self._queue: deque[ReadableSpan] = deque()
        self._cond = threading.Condition()
        self._enqueued = 0  # spans ever queued; with _finished, tells a flush when it is done
        self._finished = 0
        self._flush_wanted = False
        self._dropped = 0
        self._failed = 0
        self._worker = threading.Thread(target=self._run, name="tracegrade-export", daemon=True)
        self._worker.start()

    def _restart_in_child(self) -> None:
        # The parent's worker does not exist here, and its lock may have been held at the
        # fork; the spans it had queued are the parent's to export.
        if not self._stopping:
            self._start()

    @property
    def dropped(self) -> int:
        """Spans given up on because the queue stayed full past `max_wait_s`."""
        return self._dropped

    @property
    def failed(self) -> int:
        """Spans whose export reported failure (the exporter logged why)."""
        return self._failed

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        return None

    def on_end(self, span: ReadableSpan) -> None:
        if not span.context or not span.context.trace_flags.sampled:
            return
        with self._cond:
            if self._stopping:
                self._drop("the processor was shut down")
                return
            if not self._wait_for_room():
                self._drop(f"the queue stayed full for {self._max_wait}s, or its worker ended")
                return
            self._queue.append(span)
            self._enqueued += 1
            if len(self._queue) >= self._max_batch:
                self._cond.notify_all()

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        deadline = time.monotonic() + timeout_millis / 1000
        with self._cond:
            target = self._enqueued
            self._flush_wanted = True
            self._cond.notify_all()
            while self._finished < target:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not self._worker.is_alive():
                    return False
                self._cond.wait(remaining)
        # The exporter may gather rows into bigger writes: have it write them now.
        remaining_ms = max(int((deadline - time.monotonic()) * 1000), 0)
        return self._exporter.force_flush(remaining_ms)

    def shutdown(self) -> None:
        with self._cond:
            if self._stopping:
                return
            self._stopping = True
            self._cond.notify_all()
        self._worker.join()
        self._exporter.shutdown()
        if self._dropped:
            logger.warning("tracegrade: %d spans were dropped in all", self._dropped)

    def _wait_for_room(self) -> bool:
        deadline = None if self._max_wait is None else time.monotonic() + self._max_wait
        while len(self._queue) >= self._max_queue:
            if not self._worker.is_alive():
                return False  # nothing would ever make room
            remaining = 1.0 if deadline is None else deadline - time.monotonic()
            if remaining <= 0:
                return False
            self._cond.wait(min(remaining, 1.0))
        return True

    def _drop(self, reason: str) -> None:
        self._dropped += 1
        if self._dropped == 1 or self._dropped % 1000 == 0:
            logger.warning("tracegrade: dropped a span (%d so far): %s", self._dropped, reason)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._queue or self._stopping)
                # Let a batch fill for up to the schedule delay, unless asked to hurry.
                self._cond.wait_for(self._batch_ready, timeout=self._delay)
                if not self._queue:
                    return  # stopping, and everything queued has been exported
                batch = [
                    self._queue.popleft() for _ in range(min(self._max_batch, len(self._queue)))
                ]
                self._flush_wanted = self._flush_wanted and bool(self._queue)
                self._cond.notify_all()  # producers waiting for room
            self._export(batch)

    def _batch_ready(self) -> bool:
        return len(self._queue) >= self._max_batch or self._flush_wanted or self._stopping

    def _export(self, batch: list[ReadableSpan]) -> None:
        ok = True
        if batch:
            try:
                ok = self._exporter.export(batch) is SpanExportResult.SUCCESS
            except Exception:  # an exporter that raises must not kill the worker
                logger.exception("tracegrade: span exporter raised")
                ok = False
        with self._cond:
            self._finished += len(batch)
            self._failed += 0 if ok else len(batch)
            self._cond.notify_all()
