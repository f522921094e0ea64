"""What `tracegrade serve` listens on and the limits that keep it bounded.

The defaults are the deployment contract: docker-compose.yml, the Dockerfile and the
collector configs are written against them (tests/deploy/ reads them from here).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

DEFAULT_HOST = "127.0.0.1"
DEFAULT_HTTP_PORT = 4318
DEFAULT_GRPC_PORT = 4317
HEALTH_PATH = "/health"
TRACES_PATH = "/v1/traces"
SQL_PATH = "/v1/sql"
SCORE_PATH = "/v1/score"
TOKEN_ENV = "TRACEGRADE_TOKEN"

MIB = 1024 * 1024
# A Collector batch is at most 1024 spans (send_batch_max_size in collector-config/); with
# content capture a span carries whole conversations, tens of kB. 64 MiB leaves room for
# 1024 spans of ~60 kB each, and the same limit applies to the compressed body.
DEFAULT_MAX_BODY_MB = 64


@dataclass(frozen=True)
class ServeConfig:
    """Options of one `tracegrade serve`; every limit is there to bound memory or time."""

    db: Path
    host: str = DEFAULT_HOST
    port: int = DEFAULT_HTTP_PORT
    grpc_port: int = DEFAULT_GRPC_PORT
    """0 disables the gRPC receiver."""
    token: str | None = None
    """Bearer token required on every request but /health; None or "" turns auth off."""
    max_body_bytes: int = DEFAULT_MAX_BODY_MB * MIB
    """Largest request body, compressed and again after decompression (413 above it)."""
    max_spans_per_request: int = 65_536
    """More spans than this in one request is refused (413) before rows are built."""
    max_queued_spans: int = 65_536
    """Spans decoded and waiting for their commit; beyond it requests get 429."""
    max_queued_bytes: int = 256 * MIB
    """Body bytes (decompressed) of the requests waiting for their commit."""
    max_inflight_bytes: int = 256 * MIB
    """Request bodies being received or decoded at once, compressed size."""
    max_active_requests: int = 256
    max_group_spans: int = 16_384
    """Spans per group commit: larger groups commit cheaper per span, but wait longer."""
    commit_linger_s: float = 0.008
    """How long a commit may wait for more requests when several senders are sending."""
    retry_after_s: int = 1
    log_interval_s: float = 60.0
    shutdown_timeout_s: float = 25.0
    """SIGTERM to exit: compose's stop_grace_period is 30 s."""
    idle_timeout_s: float = 120.0
    """Above Go's 90 s idle keep-alive, so the Collector closes idle connections first."""
    sql_timeout_s: float = 30.0
    sql_max_rows: int = 100_000
    sql_max_body_bytes: int = 1 * MIB
    checkpoint_threshold: str = "256MB"
    """DuckDB WAL size that triggers a checkpoint: fewer, larger checkpoints cost less per span."""

    @property
    def auth_token(self) -> str | None:
        return self.token or None
