"""`tracegrade serve`: receive OTLP traces into the database, answer read-only SQL, and
serve the live pages."""

from __future__ import annotations

import logging
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tracegrade.cli._common import DbOption, user_errors
from tracegrade.cli.archive import RetainOption, ShardOption
from tracegrade.errors import ConfigError
from tracegrade.server.config import (
    DEFAULT_GRPC_PORT,
    DEFAULT_HOST,
    DEFAULT_HTTP_PORT,
    DEFAULT_MAX_BODY_MB,
    DEFAULT_MEMORY_MB,
    MIB,
    TOKEN_ENV,
    ServeConfig,
)

if TYPE_CHECKING:
    from tracegrade.scoring.rules import Rules


def serve_command(
    db: DbOption = None,
    host: Annotated[str, typer.Option(help="Address to listen on (0.0.0.0: all).")] = DEFAULT_HOST,
    port: Annotated[
        int,
        typer.Option(
            help="OTLP/HTTP port; also /v1/sql, /health, /metrics (Prometheus) and the pages at /."
        ),
    ] = DEFAULT_HTTP_PORT,
    grpc_port: Annotated[int, typer.Option(help="OTLP/gRPC port; 0 turns gRPC off.")] = (
        DEFAULT_GRPC_PORT
    ),
    token: Annotated[
        str | None,
        typer.Option(
            envvar=TOKEN_ENV,
            help=f"Bearer token every request must carry (not /health), 16 characters or more. "
            f"Prefer ${TOKEN_ENV}: an option shows in `ps`. Empty or unset: no auth, which "
            "only loopback allows.",
            show_default=False,
        ),
    ] = None,
    allow_unauthenticated: Annotated[
        bool,
        typer.Option(
            "--allow-unauthenticated",
            help="Serve without a token on an address other machines can reach.",
        ),
    ] = False,
    allowed_host: Annotated[
        list[str] | None,
        typer.Option(
            help="Without a token, a name clients reach this server by (the Host header), "
            "besides IP addresses, localhost and --host; repeat for more. Other names get "
            "421, which keeps DNS-rebinding web pages out.",
            show_default=False,
        ),
    ] = None,
    tls_cert: Annotated[
        Path | None,
        typer.Option(
            help="PEM certificate (chain): serve HTTPS and gRPC over TLS with it and --tls-key.",
            show_default=False,
        ),
    ] = None,
    tls_key: Annotated[
        Path | None,
        typer.Option(help="PEM private key (unencrypted) of --tls-cert.", show_default=False),
    ] = None,
    max_body_mb: Annotated[
        int,
        typer.Option(min=1, help="Largest request body in MiB, compressed and decompressed."),
    ] = DEFAULT_MAX_BODY_MB,
    max_queued_spans: Annotated[
        int,
        typer.Option(min=1, help="Spans waiting for their commit before senders are told 429."),
    ] = ServeConfig.max_queued_spans,
    memory_mb: Annotated[
        int,
        typer.Option(
            min=1024,
            help="Memory budget of the whole server in MiB, DuckDB's share included; "
            "past 85% of it senders are told 503.",
        ),
    ] = DEFAULT_MEMORY_MB,
    max_connections: Annotated[
        int,
        typer.Option(min=8, help="Open HTTP connections; idle ones are closed past it."),
    ] = ServeConfig.max_connections,
    sql_timeout: Annotated[
        float,
        typer.Option(min=0.1, help="Seconds a POST /v1/sql may take, answer encoded."),
    ] = ServeConfig.sql_timeout_s,
    score_timeout: Annotated[
        float,
        typer.Option(min=0.1, help="Seconds a POST /v1/score may take before it is stopped."),
    ] = ServeConfig.score_timeout_s,
    judge_import: Annotated[
        list[str] | None,
        typer.Option(
            help="Module to import at start so POST /v1/score may name the judges it holds "
            "(module:attr) or registers; repeat for more. Requests never import anything."
        ),
    ] = None,
    log_interval: Annotated[
        float, typer.Option(min=1, help="Seconds between log lines of ingest figures.")
    ] = 60.0,
    archive: Annotated[
        str | None,
        typer.Option(
            help="Move traces older than --retain-days into this Parquet archive (a local "
            "or mounted folder); the views read both as one.",
            show_default=False,
        ),
    ] = None,
    retain_days: RetainOption = ServeConfig.retain_days,
    shard: ShardOption = ServeConfig.shard,
    archive_interval: Annotated[
        float, typer.Option(min=0.1, help="Seconds between archiving passes.")
    ] = ServeConfig.archive_interval_s,
    rules: Annotated[
        Path | None,
        typer.Option(
            help="Online scoring rules (JSON, docs/monitoring.md): each completed traffic turn "
            "a rule's where and sample pick is scored once per version of the rule. Checked "
            "at start.",
            show_default=False,
        ),
    ] = None,
    backfill: Annotated[
        bool,
        typer.Option(
            "--backfill",
            help="With --rules: a new or changed rule also scores the turns stored before it "
            "(without it, only turns completed from now on).",
        ),
    ] = False,
    discard_damaged_log: Annotated[
        bool,
        typer.Option(
            "--discard-damaged-log",
            help="Start although the write-ahead log is damaged: move it aside (kept, named "
            "in the warning) and open the database as of its last checkpoint, without the "
            "log's changes. Without it, serve refuses to start over a damaged log.",
        ),
    ] = False,
) -> None:
    """Receive OpenTelemetry traces over OTLP (HTTP and gRPC) into the database.

    Spans are acknowledged only once committed; under overload senders are told to retry
    (429/503, gRPC UNAVAILABLE). While it runs, `POST /v1/sql` answers read-only queries
    on the same port, and a browser sees the runs, cases, turns and traffic at `/` (the
    pages `--html` writes; with a token, open them once with `?token=<the token>`). On an
    address other than loopback a token is required; with --tls-cert and --tls-key the
    token and spans cross the network encrypted. Stop it with SIGTERM or Ctrl-C: it
    finishes requests in progress, flushes and closes the database.
    """
    from tracegrade.server.app import serve
    from tracegrade.store import resolve_path
    from tracegrade.store.archive_location import archive_root

    _log_to_stderr()
    with user_errors():  # an object-store URL is refused before anything is written
        archive_folder = None if archive is None else archive_root(archive)
        online_rules = None if rules is None else _rules(rules, backfill)
    config = ServeConfig(
        db=resolve_path(db),
        host=host,
        port=port,
        grpc_port=grpc_port,
        token=token or None,
        allow_unauthenticated=allow_unauthenticated,
        allowed_hosts=tuple(allowed_host or ()),
        tls_cert=tls_cert,
        tls_key=tls_key,
        max_body_bytes=max_body_mb * MIB,
        max_queued_spans=max_queued_spans,
        memory_mb=memory_mb,
        max_connections=max_connections,
        sql_timeout_s=sql_timeout,
        score_timeout_s=score_timeout,
        judge_imports=tuple(judge_import or ()),
        log_interval_s=log_interval,
        archive=archive_folder,
        retain_days=retain_days,
        shard=shard,
        archive_interval_s=archive_interval,
        discard_damaged_log=discard_damaged_log,
        rules=online_rules,
    )
    with user_errors():
        _ports_free(host, [port, grpc_port])  # before the database file is made
        serve(config)


def _rules(path: Path, backfill: bool) -> Rules:
    from tracegrade.scoring.metrics import available_metrics
    from tracegrade.scoring.rules import load_rules

    return load_rules(path, available_metrics(), backfill=backfill)


def _ports_free(host: str, ports: list[int]) -> None:
    """A port another process listens on fails the start with one line, before anything
    is written; binding for real still decides (another process may take it meanwhile)."""
    for port in filter(None, ports):
        try:
            family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
            with socket.socket(family, socket.SOCK_STREAM) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server
                probe.bind((host, port))
        except OSError as exc:
            raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


def _log_to_stderr() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("tracegrade")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    # uvicorn's own errors (a bug in a handler it caught) go to the same place.
    uvicorn_errors = logging.getLogger("uvicorn.error")
    uvicorn_errors.addHandler(handler)
    uvicorn_errors.setLevel(logging.WARNING)
    uvicorn_errors.propagate = False
