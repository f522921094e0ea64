"""The pages benchmarks still run against the current schema (they copy spans row by row in
SQL, so a new `spans` column broke one unnoticed once). Speed is measured in bench/, not here."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_pages_bench_grows_a_run_and_writes_its_page() -> None:
    done = subprocess.run(
        [sys.executable, "bench/pages/run.py", "--turns", "30"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "2x the example: 30 turns, 24 cases: report --html" in done.stdout


def test_the_traces_bench_builds_its_store_and_lists_turns(tmp_path: Path) -> None:
    # A small store: the template's 1,000 turns copied twice (the same SQL as 1M's).
    done = subprocess.run(
        [sys.executable, "bench/pages/traces.py", "--turns", "2000", "--repeat", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "newest 100 turns: 100 turns listed" in done.stdout
    assert "agent + errors + 24h: " in done.stdout  # (none of billing's errors in the last day)


def test_the_monitor_bench_scores_its_store_and_draws_each_window(tmp_path: Path) -> None:
    # The traces bench's small store, every turn scored in SQL as a rule's hourly passes.
    done = subprocess.run(
        [sys.executable, "bench/pages/monitor.py", "--turns", "2000", "--repeat", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "monitor 30d: 1,999 scored turns, 2 plots" in done.stdout
    assert "monitor 7d: " in done.stdout
