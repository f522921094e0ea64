"""The memory budget: its shares, the watch that refuses work once the process is over it
(the real flood is measured by bench/ingest/big_bodies.py), and worker threads that keep
nothing of work that failed."""

from __future__ import annotations

import gc
import threading
import time
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.tiers import costly
from tracegrade.server.commit import CommitQueue
from tracegrade.server.config import ServeConfig
from tracegrade.server.memory import MIB, MemoryBudget, MemoryWatch, resident_bytes
from tracegrade.server.pools import Pool
from tracegrade.server.receiver import Receiver
from tracegrade.server.stats import IngestStats
from tracegrade.store import SpanWriter


def test_the_shares_of_the_default_budget() -> None:
    budget = MemoryBudget(2048 * MIB)
    assert budget.duckdb_bytes == int((2048 - 256) * MIB * 0.4)
    assert budget.inflight_bytes == budget.queued_bytes == int((2048 - 256) * MIB * 0.1)
    assert budget.group_bytes == budget.duckdb_bytes // 4
    accounted = 256 * MIB + budget.duckdb_bytes + budget.inflight_bytes + 3 * budget.queued_bytes
    assert accounted < budget.refuse_at < budget.interrupt_at < budget.total_bytes


@pytest.fixture
def receiver_over_budget(tmp_path: Path) -> Iterator[tuple[Receiver, threading.Event]]:
    """A receiver whose process is already past its budget: this test process's own size."""
    writer = SpanWriter.open(tmp_path / "m.duckdb")
    stats = IngestStats()
    commit = CommitQueue(writer, stats, max_spans=10, max_bytes=MIB, max_group_spans=10)
    commit.start()
    critical = threading.Event()
    budget = MemoryBudget(resident_bytes() // 2)
    watch = MemoryWatch(budget, critical.set, interval_s=0.01)
    watch.start()
    config = ServeConfig(tmp_path / "m.duckdb")
    yield Receiver(config, commit, stats, watch, MIB), critical
    watch.stop()
    commit.close(5)
    writer.close()


@costly
def test_over_the_budget_ingest_is_told_to_retry_and_queries_are_stopped(
    receiver_over_budget: tuple[Receiver, threading.Event],
) -> None:
    receiver, critical = receiver_over_budget
    deadline = time.monotonic() + 10
    while receiver.overloaded() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    refusal = receiver.overloaded()
    assert refusal is not None
    assert refusal.status == 503
    assert "budget: retry later" in str(refusal)
    assert receiver.short_of_memory() is not None
    assert critical.wait(10), "running queries were not stopped past the budget"


class Rows:
    """Stands for a failed query's rows (a class, so that a weak reference can watch it)."""


def test_an_idle_worker_thread_keeps_nothing_of_work_that_failed() -> None:
    """Its rows are freed once the caller drops the future, with no garbage collection: a
    refused query's traceback, held by the thread's last future, had kept 1.2 GB resident."""
    pool = Pool(1, "tracegrade-test")
    watched: list[weakref.ref[Rows]] = []

    def fail() -> None:
        rows = Rows()
        watched.append(weakref.ref(rows))
        raise ValueError("refused")

    gc.disable()
    try:
        future = pool.submit(fail)
        assert isinstance(future.exception(10), ValueError)
        del future
        deadline = time.monotonic() + 5
        while watched[0]() is not None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert watched[0]() is None, "the worker thread still holds the failed work's rows"
    finally:
        gc.enable()
        assert pool.stop(time.monotonic() + 5)
