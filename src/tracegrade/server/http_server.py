"""uvicorn, run inside the server's own event loop with its own listening socket.

The server handles SIGTERM/SIGINT itself (it must stop gRPC and flush the writer after
HTTP): uvicorn's own handlers, which re-raise the signal once it stops, stay off.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Iterator

import uvicorn

from tracegrade.server.asgi import HttpApp
from tracegrade.server.config import ServeConfig
from tracegrade.server.protocol import ConnectionLimits, protocol_class
from tracegrade.server.tls import TlsFiles

MAX_HEAD_BYTES = 64 * 1024


class _Uvicorn(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class HttpServer:
    def __init__(
        self, app: HttpApp, config: ServeConfig, listener: socket.socket, tls: TlsFiles | None
    ) -> None:
        limits = ConnectionLimits(
            max_connections=config.max_connections,
            idle_timeout_s=config.idle_timeout_s,
            header_timeout_s=config.header_timeout_s,
            max_head_bytes=MAX_HEAD_BYTES,
        )
        self._listener = listener
        self.port: int = listener.getsockname()[1]
        self._server = _Uvicorn(
            uvicorn.Config(
                app,
                http=protocol_class(limits),
                ws="none",
                lifespan="off",
                log_config=None,
                access_log=False,
                proxy_headers=False,
                server_header=False,
                timeout_keep_alive=int(config.idle_timeout_s),
                h11_max_incomplete_event_size=MAX_HEAD_BYTES,
                backlog=1024,
                ssl_certfile=tls.cert if tls else None,
                ssl_keyfile=tls.key if tls else None,
            )
        )
        self.serving: asyncio.Task[None]

    async def start(self) -> None:
        self.serving = asyncio.get_running_loop().create_task(
            self._server.serve(sockets=[self._listener])
        )
        while not self._server.started and not self.serving.done():
            await asyncio.sleep(0.01)
        if self.serving.done():
            self.serving.result()  # raises what stopped it

    async def stop(self, timeout_s: float) -> None:
        """Stop accepting, close idle connections, let requests in progress finish (up to
        `timeout_s`, then they are cancelled)."""
        self._server.config.timeout_graceful_shutdown = max(1, int(timeout_s))
        self._server.should_exit = True
        await self.serving
