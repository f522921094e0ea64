"""ADK's one-time start-up stays out of the first case's latency: by the time the first
turn is timed, ADK has imported what it imports on a process's first turn (469 modules on
main, 0.3-1.8 s), and the warm-up that did it left no span behind."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from google.adk.agents.run_config import RunConfig

from tests.support.cli import ROOT
from tracegrade.harness.warmup import cool_down, warm_up
from tracegrade.store import connect


def test_the_first_turn_imports_what_later_turns_do(tmp_path: Path) -> None:
    db = tmp_path / "probe.duckdb"
    done = subprocess.run(
        [sys.executable, "-m", "tests.harness.first_turn_probe", str(db)],
        capture_output=True, text=True, cwd=ROOT, timeout=240,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    turns = json.loads(done.stdout)

    assert len(turns) == 8
    first, *rest = turns
    assert first["imported"] <= max(t["imported"] for t in rest)  # a module or two at most
    assert first["full_collections"] == 0
    connection = connect(db, read_only=True)
    stored = connection.execute(
        "SELECT count(*) FILTER (run_id IS NOT NULL), count(*) FILTER (run_id IS NULL) FROM turns"
    ).fetchall()
    warm_up_spans = connection.execute(
        "SELECT count(*) FROM agent_spans WHERE agent_name = 'tracegrade_warmup'"
    ).fetchall()
    connection.close()
    assert stored == [(8, 0)]  # the eval's turns, and no traffic turn of the warm-up
    assert warm_up_spans == [(0,)]


def test_the_warm_up_logs_no_warning(caplog: pytest.LogCaptureFixture) -> None:
    # A Python API caller sees ADK's warnings (the CLI quiets them): one naming the
    # warm-up's agent, which the user never wrote, would only puzzle them.
    with caplog.at_level(logging.WARNING):
        asyncio.run(warm_up(RunConfig()))
    cool_down()
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
