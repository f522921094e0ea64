"""Running `tracegrade serve`: open the store, start the writer and receivers, stop cleanly.

Threads: the asyncio loop (HTTP, the decoding of typical requests, signals, the periodic
log line); one decoder thread for big bodies, so they do not stall the loop; the writer
thread (group commit); grpcio's 4 workers; two threads for SQL queries and one for /health.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc

from tracegrade.errors import TracegradeError
from tracegrade.ingest.server import sidecar
from tracegrade.ingest.server.commit import CommitQueue
from tracegrade.ingest.server.config import ServeConfig
from tracegrade.ingest.server.grpc_service import start_grpc
from tracegrade.ingest.server.http_app import Connections
from tracegrade.ingest.server.http_conn import HttpConnection
from tracegrade.ingest.server.receiver import Receiver
from tracegrade.ingest.server.routes import Endpoints, Pools
from tracegrade.ingest.server.scoring import Scorer, ScoringRequests
from tracegrade.ingest.server.sql import ReadOnlyQueries, lock_down
from tracegrade.ingest.server.stats import IngestStats, log_line
from tracegrade.remote import ServerInfo
from tracegrade.store import SpanWriter

logger = logging.getLogger("tracegrade.serve")

_SWEEP_S = 10.0


class ServeError(TracegradeError):
    """`tracegrade serve` cannot start: a port is taken, or the address is wrong."""


def serve(config: ServeConfig, scorer: Scorer | None = None) -> None:
    """Serve until SIGTERM or SIGINT, then finish in-flight requests, flush, close, return.

    `scorer`, when given, answers POST /v1/score: scoring writes to the database, which
    only this process may do while it serves. It is passed in because scoring is a layer
    above ingest."""
    writer = SpanWriter.open(config.db)
    try:
        writer.connection.execute(f"SET checkpoint_threshold = '{config.checkpoint_threshold}'")
        lock_down(writer.connection)
        asyncio.run(Server(config, writer, scorer).run())
    finally:
        writer.close()


class Server:
    def __init__(
        self, config: ServeConfig, writer: SpanWriter, scorer: Scorer | None = None
    ) -> None:
        self.config = config
        self.scoring = ScoringRequests(writer.connection, scorer)
        self.stats = IngestStats()
        self.commit = CommitQueue(
            writer,
            self.stats,
            max_spans=config.max_queued_spans,
            max_bytes=config.max_queued_bytes,
            max_group_spans=config.max_group_spans,
            linger_s=config.commit_linger_s,
            retry_after_s=config.retry_after_s,
        )
        self.receiver = Receiver(config, self.commit, self.stats)
        self.queries = ReadOnlyQueries(writer.connection, config.sql_timeout_s, config.sql_max_rows)
        self.pools = Pools(
            decode=ThreadPoolExecutor(1, thread_name_prefix="tracegrade-decode"),
            sql=ThreadPoolExecutor(2, thread_name_prefix="tracegrade-sql"),
            health=ThreadPoolExecutor(1, thread_name_prefix="tracegrade-health"),
        )
        self.connections = Connections(config.idle_timeout_s)
        self.db = str(Path(config.db).expanduser().resolve())

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        self.commit.start()
        try:
            http, grpc_server = await self._listen()
        except ServeError:
            self.commit.close(timeout=5)
            raise
        self._announce(http.sockets[0].getsockname()[1])
        ticker = loop.create_task(self._tick())
        await stop.wait()
        await self._stop(http, grpc_server)
        ticker.cancel()

    async def _listen(self) -> tuple[asyncio.Server, grpc.Server | None]:
        config = self.config
        endpoints = Endpoints(self.receiver, self.queries, self.scoring, self.pools, self.db)
        try:
            http = await asyncio.get_running_loop().create_server(
                lambda: HttpConnection(endpoints, self.connections),
                config.host,
                config.port,
                reuse_address=True,
                backlog=1024,
            )
        except OSError as exc:
            raise ServeError(
                f"cannot listen on {config.host}:{config.port}: {exc.strerror or exc} "
                "(is another tracegrade serve running? see --port)"
            ) from None
        try:
            grpc_server = (
                start_grpc(self.receiver, config.host, config.grpc_port)
                if config.grpc_port
                else None
            )
        except OSError as exc:
            http.close()
            raise ServeError(f"{exc} (see --grpc-port; 0 turns gRPC off)") from None
        return http, grpc_server

    async def _stop(self, http: asyncio.Server, grpc_server: grpc.Server | None) -> None:
        """Stop accepting, let requests in progress finish, flush the writer: all bounded."""
        started = time.monotonic()
        logger.info("stopping: finishing the requests in progress")
        self.receiver.draining = True
        http.close()
        self.connections.drain()
        grpc_done = grpc_server.stop(self._left(started)) if grpc_server else None
        while self.connections.busy and self._left(started) > 0:
            await asyncio.sleep(0.02)
        if grpc_done is not None:
            await asyncio.get_running_loop().run_in_executor(
                None, grpc_done.wait, self._left(started)
            )
        self.queries.interrupt_all()
        if not self.commit.close(self._left(started) + 2):
            logger.error("the writer did not finish within the shutdown timeout")
        for pool in (self.pools.decode, self.pools.sql, self.pools.health):
            pool.shutdown(wait=False, cancel_futures=True)
        sidecar.remove(self.db)
        total = self.stats.snapshot()
        period = f"since start ({self.stats.uptime_s:.0f} s)"
        line = log_line(total, total.spans_stored, self.commit.queued_spans, period)
        logger.info("stopped in %.1f s; %s", time.monotonic() - started, line)

    def _announce(self, port: int) -> None:
        config, token = self.config, self.receiver.token_required
        url = sidecar.http_url(config.host, port)
        sidecar.write(ServerInfo(os.getpid(), url, token, self.db, config.grpc_port or None))
        grpc_text = f", OTLP/gRPC on {config.host}:{config.grpc_port}" if config.grpc_port else ""
        logger.info(
            "serving %s: OTLP/HTTP on %s/v1/traces%s, read-only SQL on %s/v1/sql; %s",
            self.db,
            url,
            grpc_text,
            url,
            "bearer token required" if token else "no auth",
        )
        if not token and not _is_loopback(config.host):
            logger.warning(
                "listening on %s without a token: anyone who reaches it can write and read "
                "spans (set TRACEGRADE_TOKEN)",
                config.host,
            )

    def _left(self, started: float) -> float:
        return max(0.0, self.config.shutdown_timeout_s - (time.monotonic() - started))

    async def _tick(self) -> None:
        """The periodic log line of ingest figures, and closing connections gone quiet."""
        interval = self.config.log_interval_s
        last_log, last = time.monotonic(), self.stats.snapshot()
        while True:
            await asyncio.sleep(min(_SWEEP_S, interval))
            self.connections.sweep()
            now = time.monotonic()
            if now - last_log >= interval:
                current = self.stats.snapshot()
                period = f"in the last {now - last_log:.0f} s"
                line = log_line(
                    current.minus(last), current.spans_stored, self.commit.queued_spans, period
                )
                logger.info("%s", line)
                last_log, last = now, current


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
