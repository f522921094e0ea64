"""Scoring what is already stored: the latest run, the criteria it ran with, a writable open."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tracegrade.errors import ConfigError
from tracegrade.scoring.config_file import LoadedConfig
from tracegrade.scoring.criteria import parse_config
from tracegrade.scoring.engine import NothingToScore, score
from tracegrade.scoring.metrics import available_metrics
from tracegrade.scoring.selection import Selection
from tracegrade.scoring.verdict import ScoringResult
from tracegrade.store import connect


def latest_run_id(db: Path) -> str:
    connection = connect(db, read_only=True)
    try:
        rows = connection.execute(
            "SELECT run_id FROM eval_runs ORDER BY started_at DESC LIMIT 1"
        ).fetchall()
    finally:
        connection.close()
    if not rows:
        raise NothingToScore(f"{db} holds no eval run: record one with `tracegrade run`")
    return str(rows[0][0])


def run_criteria(db: Path, run_id: str | None) -> dict[str, Any] | None:
    """The criteria document a run was made with, or None when it had none."""
    connection = connect(db, read_only=True)
    try:
        rows = connection.execute(
            "SELECT criteria FROM eval_runs WHERE run_id = ?", [run_id]
        ).fetchall()
    finally:
        connection.close()
    if not rows:
        raise NothingToScore(f"no eval run '{run_id}' in {db} (see `tracegrade runs`)")
    document = json.loads(rows[0][0]) if rows[0][0] else None
    return document or None


def score_stored(
    db: Path,
    selection: Selection,
    criteria: LoadedConfig | None,
    raw: dict[str, Any] | None,
    metric_dirs: Iterable[Path] = (),
) -> ScoringResult:
    """Score `selection` in the file with `criteria`, or with the `raw` document a run kept."""
    specs = criteria.specs if criteria else available_metrics(list(metric_dirs))
    try:
        config = criteria.config if criteria else parse_config(raw, specs)
    except ConfigError as exc:
        raise ConfigError(f"the criteria recorded with the run: {exc}") from None
    connection = connect(db)
    try:
        return score(connection, selection, config, specs)
    finally:
        connection.close()
