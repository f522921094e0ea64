"""The pages benchmark still runs against the current schema (it copies spans row by row in
SQL, so a new `spans` column broke it unnoticed once). Speed is measured in bench/, not here."""

from __future__ import annotations

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
