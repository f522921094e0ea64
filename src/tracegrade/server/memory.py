"""The server's memory budget, and the watch that pushes back before it is reached.

One number (`--memory-mb`, default 2048) bounds the whole process. It is carved into
DuckDB's `memory_limit` (its buffer pool: cached table blocks, query and checkpoint
buffers) and the request budgets (bodies in flight, rows waiting for their commit), over
a fixed allowance for the interpreter and libraries. Those budgets bound what is
accounted; what is not (a checkpoint's working memory outside the buffer pool, DuckDB's
2,048-row result chunks, allocator slack) is caught by watching the process's resident
size itself: over `refuse_at`, new ingest, SQL and scoring get 503 with Retry-After until
it falls back (and /health says so); over `interrupt_at`, running queries and scorings are
stopped. After a user's query that grew the process, what it freed is handed back at once.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

logger = logging.getLogger("tracegrade.serve")

MIB = 1024 * 1024
# Measured: `tracegrade serve` idles at ~130-150 MiB (Python, protobuf, grpc, DuckDB).
_BASELINE_BYTES = 256 * MIB
_PAGE = os.sysconf("SC_PAGE_SIZE")
_PURGE_EVERY_S = 1.0
_SETTLE_GROWTH = 64 * MIB


@dataclass(frozen=True)
class MemoryBudget:
    total_bytes: int

    @property
    def duckdb_bytes(self) -> int:
        """DuckDB's memory_limit: 40% of what the baseline leaves. Measured: at ~100 MiB an
        insert of 16 MiB of spans ran out of it and DuckDB, failing to roll back, gave up on
        the database until restarted; hence `--memory-mb` 1024 at least (~300 MiB here)."""
        return self._share(0.40)

    @property
    def group_bytes(self) -> int:
        """One group commit's body bytes: DuckDB holds its rows until the commit ends."""
        return self.duckdb_bytes // 4

    @property
    def inflight_bytes(self) -> int:
        """Request bodies being received or decoded (compressed): 10%."""
        return self._share(0.10)

    @property
    def queued_bytes(self) -> int:
        """Decompressed bodies whose rows wait for their commit: 10%; their rows take about
        twice that again as Python objects, and the numpy columns and DuckDB's copy in the
        commit once more."""
        return self._share(0.10)

    @property
    def purge_at(self) -> int:
        """Past this, what the allocators keep of freed memory is handed back (once a second)."""
        return int(self.total_bytes * 0.70)

    @property
    def refuse_at(self) -> int:
        return int(self.total_bytes * 0.85)

    @property
    def interrupt_at(self) -> int:
        return int(self.total_bytes * 0.95)

    def _share(self, fraction: float) -> int:
        return max(16 * MIB, int((self.total_bytes - _BASELINE_BYTES) * fraction))


class MemoryWatch:
    """Samples the resident size every `interval_s` on its own thread (one small read of
    /proc/self/statm), so a request's admission reads a number instead of the file."""

    def __init__(
        self, budget: MemoryBudget, on_critical: Callable[[], None], interval_s: float = 0.05
    ) -> None:
        self.budget = budget
        self.resident = resident_bytes()
        self._on_critical = on_critical
        self._interval_s = interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tracegrade-memory", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    @property
    def over(self) -> bool:
        return self.resident > self.budget.refuse_at

    def settle(self, before: int) -> None:
        """After a user's query, which found the process at `before` bytes: if it has grown
        by more than 64 MiB since, freed memory is handed back at once (a wide query had left
        DuckDB's allocator holding ~1 GB, below `purge_at`, for the next one to add to).
        On a worker thread: a purge takes ~85 ms a GB."""
        if resident_bytes() > before + _SETTLE_GROWTH:
            _give_back_free_memory()
            self.resident = resident_bytes()

    def describe(self) -> str:
        return (
            f"the server uses {self.resident // MIB} MiB, over {self.budget.refuse_at // MIB} "
            f"MiB of its {self.budget.total_bytes // MIB} MiB budget: retry later"
        )

    def _run(self) -> None:
        was_over, last_purge = False, 0.0
        while not self._stop.wait(self._interval_s):
            self.resident = resident_bytes()
            purge = self.resident > self.budget.purge_at
            if purge and time.monotonic() - last_purge > _PURGE_EVERY_S:
                # Freed memory the allocators keep counts as resident: hand it back first.
                _give_back_free_memory()
                last_purge = time.monotonic()
                self.resident = resident_bytes()
            if self.resident > self.budget.interrupt_at:
                self._on_critical()
            if self.over and not was_over:
                logger.warning("%s", self.describe())
            was_over = self.over


def resident_bytes() -> int:
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):  # not Linux: no watch, budgets only
        return 0


def _give_back_free_memory() -> None:
    """The allocators keep freed memory for reuse (measured: DuckDB's jemalloc held 1 GB after
    a 1 GB query, idle, for good); purging hands it back, ~85 ms for 1 GB. Only when over the
    line or after a query that grew the process: DuckDB's `allocator_background_threads`
    would do it all the time, for ~5% more CPU per ingested span (measured with
    bench/ingest). Python's unreachable cycles go first: a failed request's traceback holds
    its frames, and their rows, until a collection, which an idle server may not run for
    good (startup's heap is frozen out of it: well under a ms)."""
    gc.collect()
    if _jemalloc_purge is not None:
        _jemalloc_purge()
    if _malloc_trim is not None:
        _malloc_trim(0)


def _find_malloc_trim() -> Callable[[int], int] | None:
    try:
        trim: Callable[[int], int] = ctypes.CDLL(ctypes.util.find_library("c")).malloc_trim
    except (OSError, AttributeError, TypeError):  # not glibc
        return None
    return trim


def _find_jemalloc_purge() -> Callable[[], int] | None:
    """DuckDB's own jemalloc (exported as duckdb_je_*), purging every arena; None if absent."""
    try:
        import _duckdb

        mallctl = ctypes.CDLL(_duckdb.__file__).duckdb_je_mallctl
    except (ImportError, OSError, AttributeError):
        return None
    mallctl.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                        ctypes.c_size_t]  # fmt: skip
    return lambda: int(mallctl(b"arena.4096.purge", None, None, None, 0))  # 4096: all arenas


_malloc_trim = _find_malloc_trim()
_jemalloc_purge = _find_jemalloc_purge()
