"""`tracegrade serve`: the OTLP receiver (HTTP and gRPC) and the read-only SQL endpoint."""

from tracegrade.ingest.server.app import ServeError, serve
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
