"""Replay and score in one call: what `tracegrade run` does before it reports."""

from __future__ import annotations

import os
from dataclasses import dataclass

from tracegrade.capture import CaptureStats, configure
from tracegrade.harness import RunPlan, RunResult, execute
from tracegrade.harness.run import Progress
from tracegrade.scoring.config_file import LoadedConfig
from tracegrade.scoring.engine import score
from tracegrade.scoring.selection import Selection
from tracegrade.scoring.verdict import ScoringResult


@dataclass(frozen=True)
class Evaluation:
    run: RunResult
    scoring: ScoringResult
    capture: CaptureStats
    """Spans stored and lost while the run was captured: lost spans mean incomplete turns."""


def evaluate(
    plan: RunPlan,
    criteria: LoadedConfig,
    db: str | os.PathLike[str] | None = None,
    progress: Progress | None = None,
) -> Evaluation:
    """Capture into the DuckDB file, replay the plan, then score the run there."""
    capture = configure(db)
    try:
        run = execute(plan, progress)
        capture.flush()
        connection = capture.exporter.writer.connection  # type: ignore[attr-defined]
        result = score(connection, Selection(run_id=run.run_id), criteria.config, criteria.specs)
    finally:
        capture.shutdown()
    return Evaluation(run, result, capture.stats())
