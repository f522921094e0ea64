"""Timing helpers for bench/scale: wall and CPU seconds of a child command or a block, with
the machine's load (1-minute average from /proc/loadavg) before and after, since the 2-core
machine is shared and wall seconds alone mislead under load."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

CACHE = Path(os.environ.get("TMPDIR", "/tmp")) / "tracegrade-bench"
VENV_BIN = Path(sys.executable).parent


@dataclass
class Timing:
    wall_s: float = 0.0
    cpu_s: float = 0.0
    load: tuple[float, float] = (0.0, 0.0)
    extra: dict[str, object] = field(default_factory=dict)

    def text(self) -> str:
        return (
            f"{self.wall_s:,.1f} s wall, {self.cpu_s:,.1f} s CPU, "
            f"load {self.load[0]:.1f} -> {self.load[1]:.1f}"
        )


def load() -> float:
    return os.getloadavg()[0]


@contextmanager
def timed(children: bool = False) -> Iterator[Timing]:
    """Wall and CPU seconds of the block: this process's CPU, or (children=True) that of
    the child processes it waited for."""
    who = resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF
    timing = Timing()
    before_load, start, usage = load(), time.perf_counter(), resource.getrusage(who)
    yield timing
    after = resource.getrusage(who)
    timing.wall_s = time.perf_counter() - start
    timing.cpu_s = (after.ru_utime - usage.ru_utime) + (after.ru_stime - usage.ru_stime)
    timing.load = (before_load, load())


def run_timed(args: Sequence[str]) -> tuple[Timing, str]:
    """Run a tracegrade command of this venv to its exit; its timing and stdout."""
    with timed(children=True) as timing:
        done = subprocess.run(
            [str(VENV_BIN / args[0]), *args[1:]], capture_output=True, text=True, check=False
        )
    if done.returncode not in (0, 1):  # 1: a traffic gate failed, which is a result
        raise RuntimeError(f"{' '.join(args)} exited {done.returncode}: {done.stderr[-2000:]}")
    return timing, done.stdout


def tree_bytes(root: Path, pattern: str = "**/*.parquet") -> int:
    return sum(p.stat().st_size for p in root.glob(pattern))


def say(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')} load {load():.1f}] {text}", flush=True)
