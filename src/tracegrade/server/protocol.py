"""HTTP/1.1 connections: uvicorn's h11 protocol, bounded in number and in time.

uvicorn parses HTTP and runs the ASGI app (asgi.py). What it leaves open, a server that
other machines reach must close, so this subclass adds:

- a cap on open connections: past it, the connection that has waited longest without a
  request in progress (an idle keep-alive, or a client still sending its head) is closed
  to make room; only when every connection is inside a request is the new one refused
  (503). Thousands of idle sockets cannot stop ingest or /health, nor run out of fds;
- a deadline for a new connection's first request (uvicorn times only connections that
  finished one) and for each request head, counted from its first byte: a client that
  trickles a byte now and then (slowloris) cannot hold a connection by staying active;
- 431 for a head over the size limit, and 400 for a body cut short by the client closing
  (uvicorn answers neither). h11's own limit (`max_incomplete_event_size`) bounds only a
  head still incomplete: one that arrives whole in a single read, as a 100 KB head over
  loopback does, is parsed whatever its size. `_HeadLimitedConnection` bounds both;
- a body refused from the head is read and dropped for `linger_s` at most: the client
  sees the answer, not a reset while it still writes, and the connection is then closed.

It uses uvicorn's H11Protocol attributes (`conn`, `cycle`, `connections`,
`timeout_keep_alive_task`), hence the narrow uvicorn pin in pyproject.toml; the tests in
tests/serve/test_connections.py exercise each of these behaviours.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from dataclasses import dataclass
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


@dataclass(frozen=True)
class ConnectionLimits:
    max_connections: int
    idle_timeout_s: float
    header_timeout_s: float
    max_head_bytes: int = 64 * 1024
    linger_s: float = 2.0


# Where h11 ends a head: a blank line, CRLF or bare LF (h11/_receivebuffer.py).
_BLANK_LINE = re.compile(rb"\n\r?\n")


class _HeadLimitedConnection(h11.Connection):
    """h11's server side, refusing a request head over `max_head_bytes` however it arrived."""

    def __init__(self, max_head_bytes: int) -> None:
        super().__init__(h11.SERVER, max_incomplete_event_size=max_head_bytes)
        self._max_head_bytes = max_head_bytes

    def next_event(self) -> Any:
        if self.their_state is h11.IDLE and self.head_too_large():
            # As h11 raises past its own limit: send_400_response() answers 431 and closes.
            raise h11.RemoteProtocolError("request head too large", error_status_hint=431)
        return super().next_event()

    def head_too_large(self) -> bool:
        """More than the limit is buffered and no head ends within the limit."""
        buffered, limit = self.trailing_data[0], self._max_head_bytes
        return len(buffered) > limit and _BLANK_LINE.search(buffered, 0, limit) is None


class BoundedH11Protocol(H11Protocol):
    limits: ConnectionLimits  # set on the subclass `protocol_class()` makes

    conn: _HeadLimitedConnection

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.conn = _HeadLimitedConnection(self.limits.max_head_bytes)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.waiting_since = time.monotonic()
        self._head_timer: asyncio.TimerHandle | None = None
        self._linger_timer: asyncio.TimerHandle | None = None
        if len(self.connections) > self.limits.max_connections and not self._make_room():
            self._answer_and_close(503, "too many connections are in a request: retry later")
            return
        self.timeout_keep_alive_task = self.loop.call_later(
            self.limits.idle_timeout_s, self.timeout_keep_alive_handler
        )

    def connection_lost(self, exc: Exception | None) -> None:
        for timer in (self._head_timer, self._linger_timer):
            if timer is not None:
                timer.cancel()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)  # a refused body's data is dropped by uvicorn
        if self.transport.is_closing():
            return
        if self._linger_timer is not None and self.conn.their_state is not h11.SEND_BODY:
            self._linger_timer.cancel()  # the refused body is over: the connection goes on
            self._linger_timer = None
        self._watch_head()

    def eof_received(self) -> bool | None:  # type: ignore[override]
        """The client will send nothing more: answer what it sent, if anything, then close."""
        if self.cycle is not None and not self.cycle.response_complete:
            if self.conn.their_state is h11.SEND_BODY:
                self.conn.receive_data(b"")  # h11 reports the body as cut short: 400
                self.handle_events()
                return None
            # Answer the request in progress, then close. The handler hears of it too: a
            # client that closed (not only half-closed) is gone, and a long query or scoring
            # for it is stopped.
            self.cycle.keep_alive = False
            self.cycle.message_event.set()
            return True
        return None

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self.waiting_since = time.monotonic()
        if not self.transport.is_closing() and self.conn.their_state is h11.SEND_BODY:
            # Answered before its body was read: drop what still comes, for a while.
            self._linger_timer = self.loop.call_later(self.limits.linger_s, self._close)

    def send_400_response(self, msg: str) -> None:
        """h11 refused the request: 431 if its head is over the limit, else 400."""
        if self.conn.head_too_large():
            self._answer_and_close(431, f"request head over {self.limits.max_head_bytes} bytes")
        else:
            self._answer_and_close(400, f"bad HTTP request: {msg}")

    @property
    def in_request(self) -> bool:
        return self.cycle is not None and not self.cycle.response_complete

    def _watch_head(self) -> None:
        """Start the head's deadline at its first byte; stop it once the head is whole."""
        arriving = self.conn.their_state is h11.IDLE and bool(self.conn.trailing_data[0])
        if arriving and self._head_timer is None:
            self._head_timer = self.loop.call_later(
                self.limits.header_timeout_s, self._head_too_slow
            )
        elif not arriving and self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_too_slow(self) -> None:
        self._head_timer = None
        if not self.in_request:
            self._answer_and_close(
                408, f"the request head took over {self.limits.header_timeout_s:g} s"
            )

    def _make_room(self) -> bool:
        """Close the connection waiting longest outside a request; False if all are in one."""
        waiting = [
            c
            for c in self.connections
            if isinstance(c, BoundedH11Protocol)
            and c is not self
            and not c.in_request
            and not c.transport.is_closing()
        ]
        if not waiting:
            return False
        min(waiting, key=lambda c: c.waiting_since)._close()
        return True

    def _answer_and_close(self, status: int, message: str) -> None:
        """Raw bytes: h11 may be in its error state, or no request may have begun."""
        body = json.dumps({"error": message}).encode()
        head = (
            f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\n"
            f"content-type: application/json\r\ncontent-length: {len(body)}\r\n"
            "connection: close\r\n\r\n"
        )
        if not self.transport.is_closing():
            self.transport.write(head.encode() + body)
        self._close()

    def _close(self) -> None:
        self._unset_keepalive_if_required()
        if self.cycle is not None and not self.cycle.response_complete:
            self.cycle.keep_alive = False
        if not self.transport.is_closing():
            self.transport.close()


_REASONS = {
    400: "Bad Request",
    408: "Request Timeout",
    431: "Request Header Fields Too Large",
    503: "Service Unavailable",
}


def protocol_class(limits: ConnectionLimits) -> type[BoundedH11Protocol]:
    """The protocol uvicorn instantiates per connection, carrying these limits."""
    attributes: dict[str, Any] = {"limits": limits}
    return type("TracegradeH11Protocol", (BoundedH11Protocol,), attributes)
