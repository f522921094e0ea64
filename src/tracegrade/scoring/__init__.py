"""Scoring: SQL scorers over the views, criteria as ADK reads them, and the gate.

Every metric is a file in `queries/scorers/`; `score()` runs them over a `Selection` of
turns (one eval run, or a sample of traffic), stores the results in `scores`,
`case_results` and `scorings`, and returns the verdict with its exit code.
"""

from tracegrade.scoring.config_file import LoadedConfig, load_scoring_config
from tracegrade.scoring.criteria import Criterion, RepeatPolicy, ScoringConfig, parse_config
from tracegrade.scoring.engine import run_metric, score
from tracegrade.scoring.metrics import MetricSpec, available_metrics
from tracegrade.scoring.selection import Selection
from tracegrade.scoring.verdict import CaseResult, ScoringResult

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
