"""Group commit: one writer thread stores many requests' spans per transaction.

Receivers hand decoded rows to `CommitQueue.submit`, which returns a future that is
resolved only after the transaction holding those rows has committed: the receiver
acknowledges then, and not before. Committing 16k spans at once costs a fraction per
span of committing each 512-span request alone. The queue is bounded in spans and in
bytes; a full queue raises `Overloaded` rather than growing.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field

import duckdb

from tracegrade.server.admission import Overloaded, Refused
from tracegrade.server.stats import IngestStats
from tracegrade.store import SpanRow, SpanWriter

logger = logging.getLogger("tracegrade.serve")

# Errors that come from the rows themselves: the same rows would fail again.
_DATA_ERRORS = (duckdb.ConversionException, duckdb.InvalidInputException, UnicodeError)


@dataclass
class _Pending:
    rows: Sequence[SpanRow]
    weight: int
    future: Future[None] = field(default_factory=Future)


class CommitQueue:
    def __init__(
        self,
        writer: SpanWriter,
        stats: IngestStats,
        *,
        max_spans: int,
        max_bytes: int,
        max_group_spans: int,
        max_group_bytes: int = 1 << 62,
        linger_s: float = 0.0,
        retry_after_s: int = 1,
    ) -> None:
        self._writer = writer
        self._stats = stats
        self._max_spans, self._max_bytes = max_spans, max_bytes
        self._max_group = max_group_spans
        self._max_group_bytes = max_group_bytes
        self._linger_s = linger_s
        self._group_average = 1.0
        self._retry_after_s = retry_after_s
        self._items: deque[_Pending] = deque()
        self._spans = self._bytes = 0
        self._cond = threading.Condition()
        self._closing = False
        self.failure: str | None = None
        """Why the last commit failed, until one succeeds (/health reports it)."""
        self._thread = threading.Thread(target=self._run, name="tracegrade-writer", daemon=True)

    def start(self) -> None:
        self._thread.start()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive() and not self._closing

    @property
    def queued_spans(self) -> int:
        return self._spans

    def full(self) -> bool:
        return self._spans >= self._max_spans or self._bytes >= self._max_bytes

    def submit(self, rows: Sequence[SpanRow], weight: int) -> Future[None]:
        """Queue rows for the next group; `weight` is their body size in bytes."""
        item = _Pending(rows, weight)
        with self._cond:
            if self._closing or not self._thread.is_alive():
                raise Overloaded("shutting down", status=503, retry_after_s=self._retry_after_s)
            over = (
                self._spans + len(rows) > self._max_spans or self._bytes + weight > self._max_bytes
            )
            if over and self._items:
                raise Overloaded(
                    f"{self._spans} spans already wait for their commit: retry later",
                    retry_after_s=self._retry_after_s,
                )
            self._items.append(item)
            self._spans += len(rows)
            self._bytes += weight
            self._cond.notify()
        return item.future

    def close(self, timeout: float) -> bool:
        """Refuse new rows, commit the queued ones, stop the thread. False if it overran."""
        with self._cond:
            self._closing = True
            self._cond.notify()
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _run(self) -> None:
        while True:
            group = self._take()
            if not group:
                return
            try:
                self._commit(group)
            finally:
                with self._cond:
                    self._spans -= sum(len(item.rows) for item in group)
                    self._bytes -= sum(item.weight for item in group)

    def _take(self) -> list[_Pending]:
        """The next group: what is queued, up to `max_group_spans` and `max_group_bytes`
        (at least one item): DuckDB holds a commit's rows in its memory until it ends.

        A commit has a large fixed cost (~5 ms of CPU), so when requests come from several
        senders at once (recent groups held more than one on average) the writer lingers up
        to `linger_s` for more to join: measured with 4 senders of 512 spans, a third fewer
        commits and ~10% less CPU per span. A lone sender's requests never wait.
        """
        with self._cond:
            while not self._items and not self._closing:
                self._cond.wait()
            group: list[_Pending] = []
            size = weight = 0
            linger = self._linger_s if self._group_average > 1.2 else 0.0
            deadline = time.monotonic() + linger
            while True:
                while self._items and (not group or self._fits(size, weight)):
                    group.append(self._items.popleft())
                    size += len(group[-1].rows)
                    weight += group[-1].weight
                left = deadline - time.monotonic()
                if self._closing or self._items or left <= 0:
                    self._group_average = 0.8 * self._group_average + 0.2 * len(group)
                    return group
                self._cond.wait(left)

    def _fits(self, size: int, weight: int) -> bool:
        """Whether the next queued item joins a group of `size` spans and `weight` bytes."""
        item = self._items[0]
        return (
            size + len(item.rows) <= self._max_group
            and weight + item.weight <= self._max_group_bytes
        )

    def _commit(self, group: list[_Pending]) -> None:
        rows = group[0].rows if len(group) == 1 else [r for item in group for r in item.rows]
        began = time.perf_counter()
        try:
            result = self._writer.write(rows)
        except Exception as exc:
            if len(group) > 1:
                # One request's bad rows must not fail the others: commit each on its own.
                for item in group:
                    self._commit([item])
                return
            if not isinstance(exc, _DATA_ERRORS):
                self.failure = f"the database cannot be written: {exc}"
            _fail(group[0], exc, self._retry_after_s)
            return
        self.failure = None
        self._stats.committed(time.perf_counter() - began)
        self._stats.add(spans_stored=result.stored, duplicates=result.duplicates, commits=1)
        for item in group:
            item.future.set_result(None)


def _fail(item: _Pending, exc: Exception, retry_after_s: int) -> None:
    error: Exception
    if isinstance(exc, _DATA_ERRORS):
        error = Refused(400, f"spans could not be stored: {exc}")
    else:
        logger.error("writing %d spans failed: %s", len(item.rows), exc)
        error = Overloaded(
            f"the database write failed, retry later: {exc}",
            status=503,
            retry_after_s=retry_after_s,
        )
    item.future.set_exception(error)
