"""Running `tracegrade serve`: open the store, start the writer and receivers, stop cleanly.

Threads: the asyncio loop (uvicorn's HTTP, the decoding of typical requests, signals, the
periodic log line); one decoder thread for big bodies, so they do not stall the loop; the
writer thread (group commit); grpcio's 4 workers; two threads for SQL queries, one for
scoring, one for /health; the memory watch.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import signal
import socket
import time
from pathlib import Path

import duckdb

from tracegrade.errors import TracegradeError
from tracegrade.remote import ServerInfo
from tracegrade.server import sidecar
from tracegrade.server.config import ServeConfig, is_loopback
from tracegrade.server.http_server import HttpServer
from tracegrade.server.memory import MIB, MemoryBudget
from tracegrade.server.parts import Parts
from tracegrade.server.stats import log_line
from tracegrade.server.tls import TlsFiles, load_tls
from tracegrade.store import SpanWriter
from tracegrade.store.archive_location import open_archive
from tracegrade.store.readonly import lock_down

logger = logging.getLogger("tracegrade.serve")


class ServeError(TracegradeError):
    """`tracegrade serve` cannot start: a port is taken, the address is wrong, no token."""


def serve(config: ServeConfig) -> None:
    """Serve until SIGTERM or SIGINT, then finish in-flight requests, flush, close, return."""
    check_token(config.auth_token)
    check_exposure(config)
    tls = load_tls(config)
    budget = MemoryBudget(config.memory_mb * MIB)
    writer = SpanWriter.open(config.db, discard_damaged_log=config.discard_damaged_log)
    try:
        if config.archive is not None:  # before the lock: it allows the archive's folder
            open_archive(writer.connection, config.archive, config.shard)
        _configure(writer.connection, config, budget)
        server = Server(config, writer, budget, tls)
        _freeze_startup_heap()
        asyncio.run(server.run())
    finally:
        try:
            writer.close()
        except duckdb.Error as exc:  # after a failed write, closing can fail as well
            logger.error("closing the database failed: %s", exc)


def _freeze_startup_heap() -> None:
    """Keep what startup made (modules, classes: most of the heap) out of every later
    collection. Decoding allocates fast enough to trigger full collections often, and each
    walked that whole heap: ~12% of the server's busy CPU on ADK-shaped spans (py-spy)."""
    gc.collect()
    gc.freeze()


def check_exposure(config: ServeConfig) -> None:
    """Other hosts may reach anything but loopback: there a token is required, unless the
    user says otherwise. Without one, anyone who reaches the port writes and reads spans."""
    if config.auth_token or is_loopback(config.host) or config.allow_unauthenticated:
        return
    raise ServeError(
        f"--host {config.host} lets other machines in, and no token is set: anyone reaching it "
        "could write spans, query them and score. Set TRACEGRADE_TOKEN (the Collector sends it "
        "as a bearer token), or pass --allow-unauthenticated on a network you trust"
    )


MIN_TOKEN_LENGTH = 16
_TOKEN = "the token (TRACEGRADE_TOKEN or --token)"


def check_token(token: str | None) -> None:
    """A token a client can send and nobody guesses: a blank one (or one with a space)
    could never match an `Authorization` header, whose value loses its outer spaces."""
    if token is None:
        return
    fix = f"use {MIN_TOKEN_LENGTH} or more letters, digits or punctuation (`openssl rand -hex 32`)"
    if not token.strip():
        raise ServeError(f"{_TOKEN} is blank: unset it to serve without auth, or {fix}")
    if not all("!" <= char <= "~" for char in token):
        raise ServeError(f"{_TOKEN} holds a space or a character a header cannot carry: {fix}")
    if len(token) < MIN_TOKEN_LENGTH:
        raise ServeError(f"{_TOKEN} has {len(token)} characters, too few: {fix}")


def _configure(
    connection: duckdb.DuckDBPyConnection, config: ServeConfig, budget: MemoryBudget
) -> None:
    """The database's settings for serving, then locked: SQL can change none of them."""
    connection.execute(f"SET checkpoint_threshold = '{config.checkpoint_threshold}'")
    connection.execute(f"SET memory_limit = '{budget.duckdb_bytes // MIB}MiB'")
    lock_down(connection)


class Server:
    def __init__(
        self, config: ServeConfig, writer: SpanWriter, budget: MemoryBudget, tls: TlsFiles | None
    ) -> None:
        self.config = config
        self.tls = tls
        self.parts = Parts.build(config, writer, budget)
        self.db = str(Path(config.db).expanduser().resolve())

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        parts = self.parts
        parts.start()
        try:
            http = await self._listen()
        except ServeError:
            parts.stop_writer(timeout=5)
            raise
        ticker = loop.create_task(self._tick())
        stopped = loop.create_task(stop.wait())
        await asyncio.wait({stopped, http.serving}, return_when=asyncio.FIRST_COMPLETED)
        await self._stop(http)
        ticker.cancel()

    async def _listen(self) -> HttpServer:
        config = self.config
        try:
            listener = socket.create_server(
                (config.host, config.port), family=_family(config.host), backlog=1024
            )
        except OSError as exc:
            raise ServeError(
                f"cannot listen on {config.host}:{config.port}: {exc.strerror or exc} "
                "(is another tracegrade serve running? see --port)"
            ) from None
        try:
            self.parts.start_grpc(self.tls)
        except OSError as exc:
            listener.close()
            raise ServeError(f"{exc} (see --grpc-port; 0 turns gRPC off)") from None
        http = HttpServer(
            self.parts.http_app(self.db, self.tls is not None), config, listener, self.tls
        )
        # Before the first request is answered: whoever sees /health answer finds the sidecar.
        self._announce(http.port)
        try:
            await http.start()
        except BaseException:
            sidecar.remove(self.db)
            raise
        return http

    async def _stop(self, http: HttpServer) -> None:
        """Stop accepting, stop queries and scoring, let ingest requests in progress finish,
        flush the writer: all within the shutdown timeout."""
        started = time.monotonic()
        deadline = started + self.config.shutdown_timeout_s
        logger.info("stopping: finishing the requests in progress")
        self.parts.begin_shutdown()
        await http.stop(max(1.0, deadline - time.monotonic() - 5))
        await asyncio.get_running_loop().run_in_executor(None, self.parts.stop, deadline)
        sidecar.remove(self.db)
        stats = self.parts.stats
        total = stats.snapshot()
        period = f"since start ({stats.uptime_s:.0f} s)"
        line = log_line(total, total.spans_stored, self.parts.commit.queued_spans, period)
        logger.info("stopped in %.1f s; %s", time.monotonic() - started, line)

    def _announce(self, port: int) -> None:
        config, token = self.config, self.parts.receiver.token_required
        tls = self.tls
        url = sidecar.http_url(config.host, port, tls is not None)
        cert = str(tls.cert) if tls else None
        sidecar.write(ServerInfo(os.getpid(), url, token, self.db, config.grpc_port or None, cert))
        grpc_text = (
            f", OTLP/gRPC{' over TLS' if tls else ''} on {config.host}:{config.grpc_port}"
            if config.grpc_port
            else ""
        )
        logger.info(
            "serving %s: OTLP/HTTP on %s/v1/traces%s, read-only SQL on %s/v1/sql, pages on "
            "%s/; %s; memory budget %d MiB (DuckDB %d MiB)",
            self.db,
            url,
            grpc_text,
            url,
            url,
            "bearer token required (a browser: open the pages once with ?token=<the token>)"
            if token
            else "no auth",
            config.memory_mb,
            self.parts.budget.duckdb_bytes // MIB,
        )
        if not token and not is_loopback(config.host):
            logger.warning(
                "listening on %s without a token (--allow-unauthenticated): anyone who "
                "reaches it can write and read spans",
                config.host,
            )

    async def _tick(self) -> None:
        """The periodic log line of ingest figures."""
        interval = self.config.log_interval_s
        stats, commit = self.parts.stats, self.parts.commit
        last = stats.snapshot()
        while True:
            await asyncio.sleep(interval)
            current = stats.snapshot()
            period = f"in the last {interval:.0f} s"
            line = log_line(current.minus(last), current.spans_stored, commit.queued_spans, period)
            logger.info("%s", line)
            last = current


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET
