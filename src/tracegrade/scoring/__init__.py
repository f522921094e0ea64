"""Scoring: SQL scorers over the views, criteria as ADK reads them, and the gate.

Every metric is a file in `queries/scorers/`; `score()` runs them over a `Selection` of
turns (one eval run, or a sample of traffic), stores the results in `scores`,
`case_results` and `scorings`, and returns the verdict with its exit code.

The names load on first use: the report reads `scoring.metrics` (what each metric is)
and must not pay for the engine (numpy, the harness's span names) to do so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from tracegrade.scoring.config_file import LoadedConfig, load_scoring_config
    from tracegrade.scoring.criteria import Criterion, RepeatPolicy, ScoringConfig, parse_config
    from tracegrade.scoring.engine import run_metric, score
    from tracegrade.scoring.metrics import MetricSpec, available_metrics
    from tracegrade.scoring.selection import Selection
    from tracegrade.scoring.verdict import CaseResult, ScoringResult

_LAZY = {
    "LoadedConfig": "tracegrade.scoring.config_file",
    "load_scoring_config": "tracegrade.scoring.config_file",
    "Criterion": "tracegrade.scoring.criteria",
    "RepeatPolicy": "tracegrade.scoring.criteria",
    "ScoringConfig": "tracegrade.scoring.criteria",
    "parse_config": "tracegrade.scoring.criteria",
    "run_metric": "tracegrade.scoring.engine",
    "score": "tracegrade.scoring.engine",
    "MetricSpec": "tracegrade.scoring.metrics",
    "available_metrics": "tracegrade.scoring.metrics",
    "Selection": "tracegrade.scoring.selection",
    "CaseResult": "tracegrade.scoring.verdict",
    "ScoringResult": "tracegrade.scoring.verdict",
}

__all__ = [
    "CaseResult",
    "Criterion",
    "LoadedConfig",
    "MetricSpec",
    "RepeatPolicy",
    "ScoringConfig",
    "ScoringResult",
    "Selection",
    "available_metrics",
    "load_scoring_config",
    "parse_config",
    "run_metric",
    "score",
]

__getattr__ = lazy_attributes(__name__, _LAZY)
