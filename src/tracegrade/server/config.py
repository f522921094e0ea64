"""What `tracegrade serve` listens on and the limits that keep it bounded.

The defaults are the deployment contract: docker-compose.yml, the Dockerfile and the
collector configs are written against them (tests/deploy/ reads them from here).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tracegrade.scoring.rules import Rules

DEFAULT_HOST = "127.0.0.1"
DEFAULT_HTTP_PORT = 4318
DEFAULT_GRPC_PORT = 4317
HEALTH_PATH = "/health"
TRACES_PATH = "/v1/traces"
SQL_PATH = "/v1/sql"
SCORE_PATH = "/v1/score"
METRICS_PATH = "/metrics"
TOKEN_ENV = "TRACEGRADE_TOKEN"

MIB = 1024 * 1024
# A Collector batch is at most 1024 spans (send_batch_max_size in collector-config/); with
# content capture a span carries whole conversations, tens of kB. 64 MiB leaves room for
# 1024 spans of ~60 kB each, and the same limit applies to the compressed body.
DEFAULT_MAX_BODY_MB = 64
DEFAULT_MEMORY_MB = 2048


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
    allow_unauthenticated: bool = False
    """Serve without a token on an address other hosts can reach (refused otherwise)."""
    allowed_hosts: tuple[str, ...] = ()
    """Host names answered without a token besides IP addresses, localhost and the bound
    name (crosssite.py): the names clients use to reach this server."""
    tls_cert: Path | None = None
    """PEM certificate (chain) for HTTPS and gRPC over TLS; None: plain HTTP and gRPC."""
    tls_key: Path | None = None
    """PEM private key of `tls_cert`; given both or neither."""
    max_body_bytes: int = DEFAULT_MAX_BODY_MB * MIB
    """Largest request body, compressed and again after decompression (413 above it)."""
    max_spans_per_request: int = 65_536
    """More spans than this in one request is refused (413) before rows are built."""
    max_queued_spans: int = 65_536
    """Spans decoded and waiting for their commit; beyond it requests get 429."""
    max_queued_bytes: int | None = None
    """Body bytes (decompressed) of the requests waiting for their commit (None: a share
    of `memory_mb`, see memory.py)."""
    max_inflight_bytes: int | None = None
    """Request bodies being received or decoded at once, compressed size (None: a share
    of `memory_mb`)."""
    max_active_requests: int = 256
    max_group_spans: int = 16_384
    """Spans per group commit: larger groups commit cheaper per span, but wait longer."""
    commit_linger_s: float = 0.008
    """How long a commit may wait for more requests when several senders are sending."""
    retry_after_s: int = 1
    log_interval_s: float = 60.0
    archive: Path | None = None
    """Root folder of the Parquet archive old traces move into (None: keep all in the DB)."""
    retain_days: float = 7.0
    """Traces that ended within this many days stay in the database."""
    shard: str = "s0"
    """This server's shard name in the archive: one per server sharing the archive."""
    archive_interval_s: float = 600.0
    """Seconds between archiving passes."""
    shutdown_timeout_s: float = 25.0
    """SIGTERM to exit: compose's stop_grace_period is 30 s."""
    max_connections: int = 1024
    """Open HTTP connections; past it the longest-waiting one not in a request is closed."""
    discard_damaged_log: bool = False
    """Start over a damaged write-ahead log: move it aside and open the database as of its
    last checkpoint (refused otherwise, see store/log_guard.py)."""
    idle_timeout_s: float = 120.0
    """Above Go's 90 s idle keep-alive, so the Collector closes idle connections first."""
    header_timeout_s: float = 10.0
    """A request's line and headers must all arrive within this of its first byte."""
    body_timeout_s: float = 60.0
    """A request's body must all arrive within this of its headers (408 after)."""
    sql_timeout_s: float = 30.0
    """POST /v1/sql, from the request to the last byte of the answer encoded."""
    sql_max_rows: int = 100_000
    sql_max_answer_bytes: int = 64 * MIB
    sql_max_body_bytes: int = 1 * MIB
    score_max_body_bytes: int = 16 * MIB
    """POST /v1/score: more than a query's, as it may carry an eval set's cases."""
    score_timeout_s: float = 300.0
    """POST /v1/score: a scoring still running then is stopped and rolled back."""
    judge_imports: tuple[str, ...] = ()
    """Modules imported at start so requests may name their judges (`module:attr`, or
    classes they register); a request itself never makes the server import anything."""
    memory_mb: int = DEFAULT_MEMORY_MB
    """The memory budget of the whole process: DuckDB's share and the request budgets are
    carved from it, and ingest is refused (503) while the process is over it."""
    rules: Rules | None = None
    """Online scoring rules (`--rules`), checked at start; None: no online scoring."""
    checkpoint_threshold: str = "256MB"
    """DuckDB WAL size that triggers a checkpoint: fewer, larger checkpoints cost less per span."""

    @property
    def auth_token(self) -> str | None:
        return self.token or None


def is_loopback(host: str) -> bool:
    """Only this machine can reach `host` (127.0.0.1, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
