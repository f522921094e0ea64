"""Stopping one query or scoring from another thread, even before it has started."""

from __future__ import annotations

import contextlib
import threading

import duckdb


class Cancellation:
    """The event loop (its client went away), a timer or shutdown cancels; the worker
    attaches its cursor. A cancel that comes first interrupts the cursor as it attaches."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cursor: duckdb.DuckDBPyConnection | None = None
        self.reason: str | None = None

    def attach(self, cursor: duckdb.DuckDBPyConnection | None) -> None:
        with self._lock:
            self._cursor = cursor
            if cursor is not None and self.reason is not None:
                cursor.interrupt()

    def cancel(self, reason: str = "cancelled") -> None:
        with self._lock:
            if self.reason is None:
                self.reason = reason
            if self._cursor is not None:
                with contextlib.suppress(duckdb.Error):  # it may have just finished
                    self._cursor.interrupt()
