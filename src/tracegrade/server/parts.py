"""The server's parts, built from its config, and the order they start and stop in."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

import grpc

from tracegrade.server.archiving import ArchiveThread
from tracegrade.server.asgi import HttpApp
from tracegrade.server.commit import CommitQueue
from tracegrade.server.config import ServeConfig
from tracegrade.server.grpc_service import start_grpc
from tracegrade.server.memory import MemoryBudget, MemoryWatch
from tracegrade.server.online import OnlineScoring
from tracegrade.server.pools import Pools
from tracegrade.server.receiver import Receiver
from tracegrade.server.routes import Endpoints
from tracegrade.server.scoring import ScoringRequests
from tracegrade.server.sql import ReadOnlyQueries
from tracegrade.server.stats import IngestStats
from tracegrade.server.tls import TlsFiles
from tracegrade.store import SpanWriter

logger = logging.getLogger("tracegrade.serve")

_STOPPING = "the server is stopping"


@dataclass
class Parts:
    config: ServeConfig
    budget: MemoryBudget
    stats: IngestStats
    commit: CommitQueue
    receiver: Receiver
    queries: ReadOnlyQueries
    scoring: ScoringRequests
    memory: MemoryWatch
    pools: Pools = field(default_factory=Pools.start)
    grpc_server: grpc.Server | None = None
    archiving: ArchiveThread | None = None
    online: OnlineScoring | None = None

    @classmethod
    def build(cls, config: ServeConfig, writer: SpanWriter, budget: MemoryBudget) -> Parts:
        stats = IngestStats()
        commit = CommitQueue(
            writer,
            stats,
            max_spans=config.max_queued_spans,
            max_bytes=config.max_queued_bytes or budget.queued_bytes,
            max_group_spans=config.max_group_spans,
            max_group_bytes=budget.group_bytes,
            linger_s=config.commit_linger_s,
            retry_after_s=config.retry_after_s,
        )
        queries = ReadOnlyQueries(
            writer.connection,
            config.sql_timeout_s,
            config.sql_max_rows,
            config.sql_max_answer_bytes,
        )
        scoring = ScoringRequests(
            writer.connection, config.score_timeout_s, config.judge_imports, config.auth_token
        )

        online: list[OnlineScoring] = []

        def critical() -> None:
            queries.interrupt_all("the server ran short of memory: the query was stopped")
            scoring.cancel("the server ran short of memory")
            for rules in online:
                rules.cancel("the server ran short of memory")

        memory = MemoryWatch(budget, critical)
        inflight = config.max_inflight_bytes or budget.inflight_bytes
        receiver = Receiver(config, commit, stats, memory, inflight)
        parts = cls(config, budget, stats, commit, receiver, queries, scoring, memory)
        if config.archive is not None:
            parts.archiving = ArchiveThread(writer, config.retain_days, config.archive_interval_s)
        if config.rules is not None:
            parts.online = OnlineScoring(
                writer, config.rules, scoring, receiver.short_of_memory, lambda: commit.queued_spans
            )
            online.append(parts.online)
        return parts

    def start(self) -> None:
        if self.online is not None:  # first: a rule that cannot run stops the start
            self.online.start()
        self.commit.start()
        self.memory.start()
        if self.archiving is not None:
            self.archiving.start()

    def start_grpc(self, tls: TlsFiles | None) -> None:
        """Raises OSError when the port cannot be had."""
        config = self.config
        if config.grpc_port:
            credentials = tls.grpc_credentials() if tls else None
            self.grpc_server = start_grpc(self.receiver, config.host, config.grpc_port, credentials)

    def http_app(self, db: str, tls: bool) -> HttpApp:
        endpoints = Endpoints(
            self.receiver, self.queries, self.scoring, self.pools, db, tls, self.online
        )
        return HttpApp(endpoints, self.config.body_timeout_s)

    def begin_shutdown(self) -> None:
        """New requests get 503; queries and scorings in progress are stopped, so that what
        remains (ingest requests waiting for their commit) ends soon."""
        self.receiver.draining = True
        self.queries.interrupt_all(f"{_STOPPING}: the query was stopped")
        self.scoring.cancel(_STOPPING)
        if self.online is not None:
            self.online.cancel(_STOPPING)

    def stop(self, deadline: float) -> None:
        """After HTTP: gRPC's requests, the worker threads, then the writer's last commits."""
        if self.grpc_server is not None:
            self.grpc_server.stop(max(0.0, deadline - time.monotonic())).wait()
        self.queries.interrupt_all(f"{_STOPPING}: the query was stopped")
        self.scoring.cancel(_STOPPING)
        if self.online is not None:
            self.online.stop(max(0.0, deadline - time.monotonic()) / 2)
        if self.archiving is not None:
            self.archiving.stop(max(0.0, deadline - time.monotonic()) / 2)
        if not self.pools.stop(deadline):
            logger.error("a worker thread was still busy at the shutdown deadline")
        self.stop_writer(max(0.0, deadline - time.monotonic()) + 2)
        self.memory.stop()

    def stop_writer(self, timeout: float) -> None:
        if not self.commit.close(timeout):
            logger.error("the writer did not finish within the shutdown timeout")
