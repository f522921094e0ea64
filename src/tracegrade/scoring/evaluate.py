"""Replay and score in one call: what `tracegrade run` does before it reports.

Locally the spans go straight into the DuckDB file and are scored there. Over OTLP they
go to a Collector (or straight to `tracegrade serve`); once the server holds every turn of
the run, it scores them, since only it may write to its file.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

from tracegrade.capture import Capture, CaptureStats, configure, configure_otlp
from tracegrade.errors import TracegradeError
from tracegrade.harness import RunPlan, RunResult, execute
from tracegrade.harness.run import Progress
from tracegrade.remote import RemoteDatabase
from tracegrade.scoring.config_file import LoadedConfig
from tracegrade.scoring.stored import score_request
from tracegrade.store import connect


@dataclass(frozen=True)
class Evaluation:
    run: RunResult
    scoring: dict[str, Any]
    """The scoring's summary: scoring_id, run_id, turns, verdict, exit_code."""
    capture: CaptureStats
    """Spans stored and lost while the run was captured: lost spans mean incomplete turns."""


def evaluate(
    plan: RunPlan,
    criteria: LoadedConfig,
    db: str | os.PathLike[str] | None = None,
    progress: Progress | None = None,
    judge: dict[str, Any] | None = None,
) -> Evaluation:
    """Capture into the DuckDB file, replay the plan, then score the run there (`judge`:
    how judged metrics call their judges, as in a scoring request)."""
    run, stats = _replay(configure(db), plan, progress)
    connection = connect(db)
    try:
        request = _request(run, criteria, judge)
        summary = score_request(connection, request, criteria.metric_dirs)
    finally:
        connection.close()
    return Evaluation(run, summary, stats)


def evaluate_over_otlp(
    plan: RunPlan,
    criteria: LoadedConfig,
    endpoint: str,
    server: RemoteDatabase,
    progress: Progress | None = None,
    wait_s: float = 300.0,
    judge: dict[str, Any] | None = None,
) -> Evaluation:
    """Send the run's spans over OTLP/HTTP, wait until `server` holds all of its turns,
    and have it score them."""
    run, stats = _replay(configure_otlp(endpoint), plan, progress)
    wait_for_run(server, run.run_id, _expected_turns(plan), wait_s)
    return Evaluation(run, server.score(_request(run, criteria, judge)), stats)


def _replay(
    capture: Capture, plan: RunPlan, progress: Progress | None
) -> tuple[RunResult, CaptureStats]:
    """Every span of the run written (or sent) before this returns."""
    try:
        run = execute(plan, progress)
        capture.flush()
    finally:
        capture.shutdown()
    return run, capture.stats()


def wait_for_run(server: RemoteDatabase, run_id: str, turns: int, timeout_s: float) -> None:
    """Until every turn of the run has arrived, and then its span count stops growing
    (a Collector delivers a trace's spans in batches)."""
    deadline = time.monotonic() + timeout_s
    seen: tuple[int, int] = (-1, -1)
    while time.monotonic() < deadline:
        now = _arrived(server, run_id)
        if now[0] >= turns and now == seen:
            return
        seen = now
        time.sleep(0.5)
    raise TracegradeError(
        f"the server holds {seen[0]} of the run's {turns} turns after {timeout_s:g} s: "
        "is the Collector sending to it? (spans keep arriving; score later with "
        f"`tracegrade score --run {run_id}`)"
    )


def _arrived(server: RemoteDatabase, run_id: str) -> tuple[int, int]:
    _, rows = server.query(
        "SELECT count(*), (SELECT count(*) FROM spans WHERE trace_id IN "
        "(SELECT trace_id FROM turns WHERE run_id = ?)) FROM turns WHERE run_id = ?",
        [run_id, run_id],
    )
    return int(rows[0][0]), int(rows[0][1])


def _expected_turns(plan: RunPlan) -> int:
    return sum(len(case.turns) for case in plan.cases) * plan.options.repeats


def _request(
    run: RunResult, criteria: LoadedConfig, judge: dict[str, Any] | None
) -> dict[str, Any]:
    return {"run_id": run.run_id, "config": criteria.raw, "judge": judge}
