"""What the HTTP and gRPC receivers share: auth, admission, and the road to the commit queue."""

from __future__ import annotations

import hmac
from concurrent.futures import Future

from tracegrade.ingest.otlp import Decoded
from tracegrade.server.admission import Budget, Overloaded
from tracegrade.server.commit import CommitQueue
from tracegrade.server.config import ServeConfig
from tracegrade.server.memory import MemoryWatch
from tracegrade.server.stats import IngestStats

_DONE: Future[None] = Future()
_DONE.set_result(None)


class Receiver:
    def __init__(
        self,
        config: ServeConfig,
        commit: CommitQueue,
        stats: IngestStats,
        memory: MemoryWatch,
        inflight_bytes: int,
    ) -> None:
        self.config = config
        self.commit = commit
        self.stats = stats
        self.memory = memory
        self.inflight = Budget(inflight_bytes)
        self.active = Budget(config.max_active_requests)
        self.draining = False
        token = config.auth_token
        self._token = token.encode() if token else None

    @property
    def token_required(self) -> bool:
        return self._token is not None

    def authorized(self, authorization: str) -> bool:
        """Without a configured token every request is let in, whatever it sends."""
        if self._token is None:
            return True
        scheme, _, credentials = authorization.strip().partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(
            credentials.strip().encode(), self._token
        )

    def overloaded(self) -> Overloaded | None:
        """Why a new request would be refused right now, if it would."""
        retry = self.config.retry_after_s
        if self.draining:
            return Overloaded("the server is shutting down", status=503, retry_after_s=retry)
        if not self.commit.alive:
            return Overloaded("the database writer has stopped", status=503, retry_after_s=retry)
        if (short := self.short_of_memory()) is not None:
            return short
        if self.commit.full():
            return Overloaded(
                f"{self.commit.queued_spans} spans wait for their commit: retry later",
                retry_after_s=retry,
            )
        return None

    def short_of_memory(self) -> Overloaded | None:
        """503 while the process is over the refusal line of its memory budget."""
        if self.memory.over:
            return Overloaded(
                self.memory.describe(), status=503, retry_after_s=self.config.retry_after_s
            )
        return None

    def unhealthy(self) -> str | None:
        """Why the server refuses spans (503) or cannot store them, if so; not a full queue,
        which is back pressure for a second (429)."""
        if self.draining:
            return "the server is shutting down"
        if not self.commit.alive:
            return "the database writer has stopped"
        if (short := self.short_of_memory()) is not None:
            return str(short)
        return self.commit.failure

    def store(self, decoded: Decoded, weight: int) -> Future[None]:
        """Queue the decoded rows; the future resolves once they are committed."""
        self.stats.add(rejected=decoded.rejected)
        if not decoded.rows:
            return _DONE
        return self.commit.submit(decoded.rows, weight)

    def begin(self) -> None:
        """Count a request in; `Overloaded` if too many are being decoded or committed."""
        if not self.active.try_take(1):
            raise Overloaded(
                f"{self.active.limit} requests are already in progress: retry later",
                retry_after_s=self.config.retry_after_s,
            )

    def end(self) -> None:
        self.active.give_back(1)
