"""Ingest counters, shared by the HTTP and gRPC receivers and the writer thread.

One lock guards them: every update is a handful of integer additions, far cheaper than
the request around it, and a snapshot must be consistent for the log line.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from dataclasses import dataclass

logger = logging.getLogger("tracegrade.serve")


@dataclass(frozen=True)
class Figures:
    requests: int = 0
    spans_stored: int = 0
    duplicates: int = 0
    rejected: int = 0
    client_errors: int = 0
    server_errors: int = 0
    overloaded: int = 0
    commits: int = 0

    def minus(self, earlier: Figures) -> Figures:
        return Figures(
            *(getattr(self, f.name) - getattr(earlier, f.name) for f in dataclasses.fields(self))
        )


COMMIT_BUCKETS_S = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
"""Upper bounds of the commit latency histogram (seconds; the last bucket is +Inf)."""


@dataclass(frozen=True)
class CommitLatency:
    """Commits counted by how long they took: `counts[i]` fell in bucket i (not cumulative;
    the last is over every bound), `sum_s` their total time."""

    counts: tuple[int, ...] = (0,) * (len(COMMIT_BUCKETS_S) + 1)
    sum_s: float = 0.0


class IngestStats:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._figures = Figures()
        self._refused: dict[int, int] = {}
        self._latency = CommitLatency()
        self.started = time.monotonic()

    def add(self, **counts: int) -> None:
        with self._lock:
            current = self._figures
            self._figures = dataclasses.replace(
                current, **{name: getattr(current, name) + n for name, n in counts.items()}
            )

    def answered(self, status: int) -> None:
        """Count one answered ingest request by its HTTP status (gRPC maps onto these)."""
        if status >= 400:
            with self._lock:
                self._refused[status] = self._refused.get(status, 0) + 1
        if status in (429, 503):
            self.add(requests=1, overloaded=1)
        elif status >= 500:
            self.add(requests=1, server_errors=1)
        elif status >= 400:
            self.add(requests=1, client_errors=1)
        else:
            self.add(requests=1)

    def committed(self, seconds: float) -> None:
        """Count one commit of the writer by how long it took."""
        bucket = next((i for i, bound in enumerate(COMMIT_BUCKETS_S) if seconds <= bound),
                      len(COMMIT_BUCKETS_S))  # fmt: skip
        with self._lock:
            counts = list(self._latency.counts)
            counts[bucket] += 1
            self._latency = CommitLatency(tuple(counts), self._latency.sum_s + seconds)

    def snapshot(self) -> Figures:
        with self._lock:
            return self._figures

    def refused(self) -> dict[int, int]:
        """Ingest requests answered with an error, by HTTP status (401, 413, 429, 503...)."""
        with self._lock:
            return dict(self._refused)

    def commit_latency(self) -> CommitLatency:
        with self._lock:
            return self._latency

    @property
    def uptime_s(self) -> float:
        return time.monotonic() - self.started


def log_line(figures: Figures, total_stored: int, queued_spans: int, period: str) -> str:
    """One line of ingest figures over `period` (e.g. "in the last 60 s")."""
    return (
        f"ingest {period}: {figures.requests} requests, "
        f"{figures.spans_stored} spans stored, {figures.duplicates} duplicates, "
        f"{figures.rejected} rejected, {figures.client_errors} 4xx, {figures.server_errors} 5xx, "
        f"{figures.overloaded} overloaded, {figures.commits} commits; "
        f"queue {queued_spans} spans; {total_stored} spans stored since start"
    )
