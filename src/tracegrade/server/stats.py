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


class IngestStats:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._figures = Figures()
        self.started = time.monotonic()

    def add(self, **counts: int) -> None:
        with self._lock:
            current = self._figures
            self._figures = dataclasses.replace(
                current, **{name: getattr(current, name) + n for name, n in counts.items()}
            )

    def answered(self, status: int) -> None:
        """Count one answered ingest request by its HTTP status (gRPC maps onto these)."""
        if status in (429, 503):
            self.add(requests=1, overloaded=1)
        elif status >= 500:
            self.add(requests=1, server_errors=1)
        elif status >= 400:
            self.add(requests=1, client_errors=1)
        else:
            self.add(requests=1)

    def snapshot(self) -> Figures:
        with self._lock:
            return self._figures

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
