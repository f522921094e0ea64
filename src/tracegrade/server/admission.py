"""Refusing work the server cannot hold: the errors that say "retry later" or "never".

Overload is answered at once (HTTP 429/503 with Retry-After, gRPC UNAVAILABLE) instead of
queueing, so memory stays bounded however fast senders are; the OTLP exporters retry.
"""

from __future__ import annotations

import threading


class Overloaded(Exception):
    """Transient: the sender should retry after `retry_after_s` seconds (HTTP 429 or 503)."""

    def __init__(self, message: str, *, status: int = 429, retry_after_s: int = 1) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after_s = retry_after_s


class Refused(Exception):
    """Permanent: the request itself is wrong and resending it cannot help (HTTP 4xx)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class Budget:
    """A counted allowance (bytes, requests) taken before work starts and given back after."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._used = 0
        self._lock = threading.Lock()

    @property
    def used(self) -> int:
        return self._used

    def try_take(self, amount: int) -> bool:
        with self._lock:
            if self._used + amount > self.limit and self._used > 0:
                return False
            # An empty budget admits one oversized taker: it could never fit otherwise.
            self._used += amount
            return True

    def give_back(self, amount: int) -> None:
        with self._lock:
            self._used -= amount
