"""Worker threads for blocking work, one small pool per kind so none can starve another.

Daemon threads, unlike `concurrent.futures.ThreadPoolExecutor`'s (which Python joins at
exit): a query DuckDB has not yet stopped must not keep a stopped server's process alive.
Shutdown interrupts the queries first and waits for them, within its deadline.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")

_STOP = object()


class Pool:
    def __init__(self, threads: int, name: str) -> None:
        self._work: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._threads = [
            threading.Thread(target=self._run, name=f"{name}-{i}", daemon=True)
            for i in range(threads)
        ]
        for thread in self._threads:
            thread.start()

    def submit(self, function: Callable[..., T], *args: Any) -> Future[T]:
        future: Future[T] = Future()
        self._work.put((future, function, args))
        return future

    def stop(self, deadline: float) -> bool:
        """Run what is queued, then end the threads; False if one still runs at `deadline`
        (a `time.monotonic()` value)."""
        for _ in self._threads:
            self._work.put(_STOP)
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        return not any(thread.is_alive() for thread in self._threads)

    def _run(self) -> None:
        while self._run_one(self._work.get()):
            pass

    @staticmethod
    def _run_one(item: Any) -> bool:
        """One item, in a frame of its own: an idle thread must not hold its last future,
        whose error's traceback holds the failed work's frames (measured: a query refused
        at the answer cap kept 1.2 GB of its rows resident, for good)."""
        if item is _STOP:
            return False
        future, function, args = item
        del item
        if future.set_running_or_notify_cancel():
            try:
                future.set_result(function(*args))
            except BaseException as exc:
                future.set_exception(exc)
                del future  # as concurrent.futures does: the traceback holds this frame
        return True


@dataclass(frozen=True)
class Pools:
    """Kept apart so that long SQL queries cannot hold up /health (a container's liveness),
    big decodes or scoring, nor a long scoring the SQL endpoint."""

    decode: Pool
    sql: Pool
    score: Pool
    health: Pool

    @classmethod
    def start(cls) -> Pools:
        return cls(
            decode=Pool(1, "tracegrade-decode"),
            sql=Pool(2, "tracegrade-sql"),
            score=Pool(1, "tracegrade-score"),
            health=Pool(1, "tracegrade-health"),
        )

    def stop(self, deadline: float) -> bool:
        pools = (self.decode, self.sql, self.score, self.health)
        stopped = [pool.stop(deadline) for pool in pools]  # every pool, even after a False
        return all(stopped)
