"""Every HTTP route as one plain ASGI application, which uvicorn serves (protocol.py).

A request is judged on its head first (Host and Origin, route, method, token, content
type, declared size, overload) and refused there without its body being read: uvicorn
sends `100 Continue` only when the application first asks for the body, so a refused
client that waits for it never sends the body at all. An admitted request's body is read
in the chunks uvicorn hands over, against its size limit, the in-flight byte budget
shared by every request, and a deadline; the handler then gets it whole.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from tracegrade.server.messages import RequestHead, Response, json_error

logger = logging.getLogger("tracegrade.serve")

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class Endpoints(Protocol):
    """What the application asks of the routes (routes.py)."""

    def admit(self, head: RequestHead) -> Response | int:
        """Refuse the request from its head, or give the largest body it may have."""

    def reserve(self, size: int) -> Response | None:
        """Take `size` bytes of the in-flight body budget, or say why not."""

    def release(self, size: int) -> None: ...

    async def handle(self, head: RequestHead, body: bytes, gone: asyncio.Event) -> Response:
        """Answer the request; `gone` is set if the client disconnects meanwhile."""

    def answered(self, head: RequestHead, status: int) -> None: ...


class _Refusal(Exception):
    def __init__(self, response: Response | None) -> None:
        self.response = response  # None: the client is gone, nobody to answer


class HttpApp:
    def __init__(self, endpoints: Endpoints, body_timeout_s: float) -> None:
        self._endpoints = endpoints
        self._body_timeout_s = body_timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return  # lifespan is off, and no other kind of connection is served
        head = _head(scope)
        verdict = self._endpoints.admit(head)
        if isinstance(verdict, Response):
            # A client waiting for 100 Continue never sends this body: close rather than wait.
            waiting = "100-continue" in head.header("expect").lower()
            await self._respond(send, head, verdict, close=waiting)
            return
        reserved = 0
        try:
            body, reserved = await self._read_body(receive, verdict)
            response = await self._handle(head, body, receive)
        except _Refusal as refusal:
            if refusal.response is not None:
                await self._respond(send, head, refusal.response)
            return
        finally:
            self._endpoints.release(reserved)
        await self._respond(send, head, response)

    async def _read_body(self, receive: Receive, limit: int) -> tuple[bytes, int]:
        """The whole body, and how much of the in-flight budget it holds."""
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(self._body_timeout_s):
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        raise _Refusal(None)
                    chunk: bytes = message.get("body", b"")
                    if size + len(chunk) > limit:
                        raise _Refusal(json_error(413, f"body over the {limit} byte limit"))
                    if refusal := self._endpoints.reserve(len(chunk)):
                        raise _Refusal(refusal)
                    size += len(chunk)
                    chunks.append(chunk)
                    if not message.get("more_body", False):
                        return (chunks[0] if len(chunks) == 1 else b"".join(chunks)), size
        except TimeoutError:
            self._endpoints.release(size)
            slow = f"the body took over {self._body_timeout_s:g} s to arrive"
            raise _Refusal(json_error(408, slow, close=True)) from None
        except BaseException:
            self._endpoints.release(size)
            raise

    async def _handle(self, head: RequestHead, body: bytes, receive: Receive) -> Response:
        """The handler's answer; it learns if the client goes away meanwhile."""
        gone = asyncio.Event()

        async def watch() -> None:
            # After the body, uvicorn's receive() returns only once the client disconnects
            # or closes its side (protocol.py), or the response is complete.
            await receive()
            gone.set()

        watcher = asyncio.get_running_loop().create_task(watch())
        try:
            return await self._endpoints.handle(head, body, gone)
        except Exception:  # a bug: keep serving, say so, and log the traceback
            logger.exception("handling %s %s failed", head.method, head.path)
            return json_error(500, "internal error, see the server log")
        finally:
            watcher.cancel()

    async def _respond(
        self, send: Send, head: RequestHead, response: Response, *, close: bool = False
    ) -> None:
        headers = [
            (b"content-type", response.content_type.encode()),
            (b"content-length", str(len(response.body)).encode()),
            *((name.encode(), value.encode()) for name, value in response.headers),
        ]
        if close or response.close:
            headers.append((b"connection", b"close"))
        await send({"type": "http.response.start", "status": response.status, "headers": headers})
        await send({"type": "http.response.body", "body": response.body})
        self._endpoints.answered(head, response.status)


def _head(scope: Scope) -> RequestHead:
    headers = {name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]}
    raw_path = (scope.get("raw_path") or scope["path"].encode()).decode("latin-1")
    query = scope.get("query_string", b"").decode("latin-1")
    scheme = scope.get("scheme", "http")
    return RequestHead(scope["method"], scope["path"], headers, raw_path, query, scheme)
