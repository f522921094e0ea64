"""HTTP/1.1 on asyncio with h11: one `HttpConnection` per socket.

A plain `asyncio.Protocol` rather than an ASGI server: it is the cheapest stack per
request here, and it lets a request be refused from its head alone (auth, content type,
size, overload) before its body is read. Bodies are held whole, within the limit the
application gives for each request; reading pauses while a request is being handled.
"""

from __future__ import annotations

import asyncio
import logging
import time

import h11

from tracegrade.ingest.server.http_app import Connections, HttpApp
from tracegrade.ingest.server.messages import RequestHead, Response, json_error

logger = logging.getLogger("tracegrade.serve")

_MAX_HEAD = 64 * 1024
# After answering a request whose body is still arriving (413, 401...), keep reading and
# dropping it this long before closing: closing at once resets the connection, and a
# client still writing its body would see the reset instead of the answer.
_LINGER_S = 2.0
# A refused request's body is read (and dropped) to keep the connection only up to this size.
_DISCARD_LIMIT = 1024 * 1024
_REASONS = {
    400: b"Bad Request",
    408: b"Request Timeout",
    413: b"Content Too Large",
    431: b"Request Header Fields Too Large",
    500: b"Internal Server Error",
}


class HttpConnection(asyncio.Protocol):
    def __init__(self, app: HttpApp, connections: Connections) -> None:
        self._app, self._connections = app, connections
        self._h11 = h11.Connection(h11.SERVER, max_incomplete_event_size=_MAX_HEAD)
        self._transport: asyncio.Transport | None = None
        self._head: RequestHead | None = None
        self._body = bytearray()
        self._limit = 0
        self._reserved = 0
        self._reject: Response | None = None
        self._task: asyncio.Task[None] | None = None
        self._lingering = False
        self.last_activity = time.monotonic()

    @property
    def busy(self) -> bool:
        return self._task is not None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        self._connections.open.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self._connections.open.discard(self)
        self._transport = None
        self._release()

    def data_received(self, data: bytes) -> None:
        self.last_activity = time.monotonic()
        if self._lingering:
            return
        self._h11.receive_data(data)
        self._process()

    def eof_received(self) -> bool:
        if self._lingering:
            return False
        self._h11.receive_data(b"")
        self._process()
        return self._task is not None  # keep the socket half-open to answer the last request

    def close_if_idle(self) -> None:
        if self._task is None:
            self._close()

    def _process(self) -> None:
        while self._task is None and self._transport is not None and not self._lingering:
            try:
                event = self._h11.next_event()
            except h11.RemoteProtocolError as exc:
                self._fail(exc.error_status_hint, f"bad HTTP request: {exc}")
                return
            if event is h11.NEED_DATA or event is h11.PAUSED:
                return
            if isinstance(event, h11.Request):
                self._on_request(event)
            elif isinstance(event, h11.Data):
                self._on_data(event.data)
            elif isinstance(event, h11.EndOfMessage):
                self._on_end()
            elif isinstance(event, h11.ConnectionClosed):
                self._close()

    def _on_request(self, event: h11.Request) -> None:
        self._head = head = _head(event)
        self._body, self._reject = bytearray(), None
        verdict = self._app.admit(head)
        if isinstance(verdict, int):
            self._limit = verdict
            if self._h11.client_is_waiting_for_100_continue:
                self._write(self._h11.send(h11.InformationalResponse(status_code=100, headers=[])))
        elif (
            verdict.close
            or self._h11.client_is_waiting_for_100_continue  # it has not sent the body yet
            or (head.content_length or _DISCARD_LIMIT + 1) > _DISCARD_LIMIT
        ):
            self._respond(verdict, close=True)
        else:
            self._reject = verdict  # read the small body and drop it: the connection stays usable

    def _on_data(self, data: bytes) -> None:
        if self._reject is not None:
            return
        if len(self._body) + len(data) > self._limit:
            self._respond(json_error(413, f"body over the {self._limit} byte limit"), close=True)
        elif refusal := self._app.reserve(len(data)):
            self._respond(refusal, close=True)
        else:
            self._reserved += len(data)
            self._body += data

    def _on_end(self) -> None:
        if self._reject is not None:
            self._respond(self._reject)
            return
        assert self._head is not None
        assert self._transport is not None
        body, self._body = bytes(self._body), bytearray()
        # The handler owns the body's share of the budget now, even if the client goes away.
        reserved, self._reserved = self._reserved, 0
        self._transport.pause_reading()
        self._task = asyncio.get_running_loop().create_task(self._run(self._head, body, reserved))

    async def _run(self, head: RequestHead, body: bytes, reserved: int) -> None:
        try:
            response = await self._app.handle(head, body)
        except Exception:  # a bug: keep serving, say so, and log the traceback
            logger.exception("handling %s %s failed", head.method, head.path)
            response = json_error(500, "internal error, see the server log")
        finally:
            self._app.release(reserved)
        self._task = None
        if self._transport is None:
            return
        self._respond(response)
        if self._transport is not None:
            self._transport.resume_reading()
            self._process()

    def _respond(self, response: Response, *, close: bool = False) -> None:
        close = close or response.close or self._connections.draining
        headers = [
            ("content-type", response.content_type),
            ("content-length", str(len(response.body))),
            *response.headers,
            *([("connection", "close")] if close else []),
        ]
        self._write(
            self._h11.send(h11.Response(status_code=response.status, headers=headers))
            + (self._h11.send(h11.Data(data=response.body)) or b"")
            + (self._h11.send(h11.EndOfMessage()) or b"")
        )
        self._app.answered(self._head, response.status)
        self._release()
        if close or self._h11.our_state is h11.MUST_CLOSE:
            self._linger()
            return
        try:
            self._h11.start_next_cycle()
        except h11.LocalProtocolError:  # answered before the body was read: cannot reuse
            self._close()

    def _fail(self, status: int, message: str) -> None:
        """Answer a request h11 could not parse: raw bytes, as h11 is now in its error state."""
        body = json_error(status, message).body
        reason = _REASONS.get(status, b"Error")
        head = f"HTTP/1.1 {status} ".encode() + reason + b"\r\ncontent-type: application/json\r\n"
        self._write(
            head + f"content-length: {len(body)}\r\nconnection: close\r\n\r\n".encode() + body
        )
        self._app.answered(self._head, status)
        self._linger()

    def _write(self, data: bytes | None) -> None:
        if data and self._transport is not None:
            self._transport.write(data)

    def _linger(self) -> None:
        """Close after the answer, but let a client still sending its body finish first."""
        if self._transport is None:
            return
        if self._h11.their_state in (h11.DONE, h11.MUST_CLOSE, h11.CLOSED):
            self._close()
            return
        self._lingering = True
        self._body = bytearray()
        asyncio.get_running_loop().call_later(_LINGER_S, self._close)

    def _close(self) -> None:
        if self._transport is not None:
            self._transport.close()
            self._transport = None
        self._release()

    def _release(self) -> None:
        if self._reserved:
            self._app.release(self._reserved)
            self._reserved = 0


def _head(event: h11.Request) -> RequestHead:
    headers = {name.decode("latin-1"): value.decode("latin-1") for name, value in event.headers}
    target = event.target.decode("latin-1")
    return RequestHead(event.method.decode("ascii", "replace"), target.split("?", 1)[0], headers)
