"""`tracegrade serve`: the OTLP receiver (HTTP and gRPC) and the read-only SQL endpoint."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tracegrade.ingest.server.config import (
    DEFAULT_GRPC_PORT,
    DEFAULT_HOST,
    DEFAULT_HTTP_PORT,
    DEFAULT_MAX_BODY_MB,
    HEALTH_PATH,
    SQL_PATH,
    TOKEN_ENV,
    TRACES_PATH,
    ServeConfig,
)

__all__ = [
    "DEFAULT_GRPC_PORT",
    "DEFAULT_HOST",
    "DEFAULT_HTTP_PORT",
    "DEFAULT_MAX_BODY_MB",
    "HEALTH_PATH",
    "SQL_PATH",
    "TOKEN_ENV",
    "TRACES_PATH",
    "ServeConfig",
    "ServeError",
    "serve",
]

if TYPE_CHECKING:
    from tracegrade.ingest.server.app import ServeError, serve


def __getattr__(name: str) -> Any:
    # The server (asyncio, h11, grpc) loads only when serving; the defaults above are cheap.
    if name in ("ServeError", "serve"):
        from tracegrade.ingest.server import app

        return getattr(app, name)
    raise AttributeError(f"module 'tracegrade.ingest.server' has no attribute {name!r}")
