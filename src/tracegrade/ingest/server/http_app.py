"""What the HTTP connections answer to: the application, and the registry of open connections."""

from __future__ import annotations

import time
from typing import Protocol

from tracegrade.ingest.server.messages import RequestHead, Response


class HttpApp(Protocol):
    def admit(self, head: RequestHead) -> Response | int:
        """Refuse the request from its head, or give the largest body it may have."""

    def reserve(self, size: int) -> Response | None:
        """Take `size` bytes of the in-flight body budget, or say why not."""

    def release(self, size: int) -> None: ...

    async def handle(self, head: RequestHead, body: bytes) -> Response: ...

    def answered(self, head: RequestHead | None, status: int) -> None: ...


class OpenConnection(Protocol):
    last_activity: float

    @property
    def busy(self) -> bool: ...

    def close_if_idle(self) -> None: ...


class Connections:
    """Open connections, so shutdown can stop idle ones and let busy ones finish."""

    def __init__(self, idle_timeout_s: float) -> None:
        self.open: set[OpenConnection] = set()
        self.draining = False
        self.idle_timeout_s = idle_timeout_s

    def drain(self) -> None:
        self.draining = True
        for connection in list(self.open):
            connection.close_if_idle()

    def sweep(self) -> None:
        """Close connections silent for longer than the idle timeout (slow or gone clients)."""
        deadline = time.monotonic() - self.idle_timeout_s
        for connection in list(self.open):
            if connection.last_activity < deadline:
                connection.close_if_idle()

    @property
    def busy(self) -> int:
        return sum(1 for connection in self.open if connection.busy)
