"""Judged metrics: LLM judges' answers as data, cached in DuckDB, scored in SQL.

`judge()` runs before the scorers: for each configured judged metric (ADK's judge metrics
with their own names and criteria, tracegrade's template judges, yours) it asks the judge
about every scored turn through the `judgements` cache and fills `scored_judgements`, which
the metric's SQL scorer aggregates as ADK aggregates. See docs/judges.md.

The names load on first use: planning a judge imports ADK's evaluation package (~0.5 s),
which a scoring without judged metrics, or reading `JudgeSettings`, must not pay for.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes
from tracegrade.errors import ConfigError

if TYPE_CHECKING:
    from tracegrade.scoring.criteria import ScoringConfig
    from tracegrade.scoring.judging.judged_metrics import judge, plan_metrics
    from tracegrade.scoring.judging.runner import JudgingStopped, JudgingSummary
    from tracegrade.scoring.judging.settings import JudgeSettings, Stop, judge_settings
    from tracegrade.scoring.metrics import MetricSpec

_LAZY = {
    "judge": "tracegrade.scoring.judging.judged_metrics",
    "plan_metrics": "tracegrade.scoring.judging.judged_metrics",
    "JudgingStopped": "tracegrade.scoring.judging.runner",
    "JudgingSummary": "tracegrade.scoring.judging.runner",
    "JudgeSettings": "tracegrade.scoring.judging.settings",
    "Stop": "tracegrade.scoring.judging.settings",
    "judge_settings": "tracegrade.scoring.judging.settings",
}

__all__ = [
    "JudgeSettings",
    "JudgingStopped",
    "JudgingSummary",
    "Stop",
    "check_judges",
    "judge",
    "judge_settings",
    "judges_resolve",
    "plan_metrics",
]

__getattr__ = lazy_attributes(__name__, _LAZY)


def check_judges(config: ScoringConfig, specs: Mapping[str, MetricSpec]) -> None:
    """Resolve every judge the criteria name, judge_imports first: `tracegrade run` calls it
    before the first case, so a mistyped judge or a missing module costs no model call."""
    judged = [s for s in specs.values() if s.judge and s.name in config.criteria]
    if judged or config.judge_imports:
        from tracegrade.scoring.judging.judged_metrics import plan_metrics

        plan_metrics(config, judged)


def judges_resolve(config: ScoringConfig, specs: Mapping[str, MetricSpec]) -> bool:
    """Whether `check_judges` passes as things are: before the agent is imported, a judge
    its module registers does not."""
    try:
        check_judges(config, specs)
    except ConfigError:
        return False
    return True
