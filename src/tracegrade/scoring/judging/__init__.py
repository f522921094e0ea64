"""Judged metrics: LLM judges' answers as data, cached in DuckDB, scored in SQL.

`judge()` runs before the scorers: for each configured judged metric (ADK's judge metrics
with their own names and criteria, tracegrade's template judges, yours) it asks the judge
about every scored turn through the `judgements` cache and fills `scored_judgements`, which
the metric's SQL scorer aggregates as ADK aggregates. See docs/judges.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import duckdb

from tracegrade.errors import ConfigError
from tracegrade.scoring.criteria import ScoringConfig
from tracegrade.scoring.judging.metrics import ADK_JUDGED, judge_options, validated_criterion
from tracegrade.scoring.judging.plan import MetricPlan
from tracegrade.scoring.judging.resolve import Judge, import_judge_modules, resolve_judge
from tracegrade.scoring.judging.runner import JudgingStopped, JudgingSummary, run_judges
from tracegrade.scoring.judging.settings import JudgeSettings, Stop, judge_settings
from tracegrade.scoring.judging.templates import load_template
from tracegrade.scoring.metrics import MetricSpec
from tracegrade.scoring.prices import default_prices

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


def judge(
    connection: duckdb.DuckDBPyConnection,
    config: ScoringConfig,
    specs: Sequence[MetricSpec],
    settings: JudgeSettings,
    scoring_id: str,
    stop: Stop | None = None,
) -> JudgingSummary:
    """Judge the scored turns for every judged metric in `specs` that `config` names;
    `stop` giving a reason ends the calling with `JudgingStopped`."""
    plans = plan_metrics(config, specs)
    prices = default_prices() | config.prices
    if settings.budget_usd is not None:
        _check_priced(plans, prices)
    return run_judges(connection, plans, settings, prices, scoring_id, stop)


def check_judges(config: ScoringConfig, specs: Mapping[str, MetricSpec]) -> None:
    """Resolve every judge the criteria name, judge_imports first: `tracegrade run` calls it
    before the first case, so a mistyped judge or a missing module costs no model call."""
    plan_metrics(config, [s for s in specs.values() if s.judge and s.name in config.criteria])


def judges_resolve(config: ScoringConfig, specs: Mapping[str, MetricSpec]) -> bool:
    """Whether `check_judges` passes as things are: before the agent is imported, a judge
    its module registers does not."""
    try:
        check_judges(config, specs)
    except ConfigError:
        return False
    return True


def plan_metrics(config: ScoringConfig, specs: Sequence[MetricSpec]) -> list[MetricPlan]:
    import_judge_modules(config.judge_imports)
    judges: dict[str, Judge] = {}
    return [_plan(spec, config, judges) for spec in specs if spec.name in config.criteria]


def _plan(spec: MetricSpec, config: ScoringConfig, judges: dict[str, Judge]) -> MetricPlan:
    raw = config.criteria[spec.name].options["judge"]
    adk = ADK_JUDGED.get(spec.name) if spec.judge == "adk" else None
    if spec.judge == "adk" and adk is None:
        raise ConfigError(
            f"metric '{spec.name}' ({spec.path}): ADK has no judge metric by that name"
        )
    criterion = validated_criterion(
        spec.name, raw, adk.criterion if adk else "LlmAsAJudgeCriterion"
    )
    judge = None
    if adk is None or adk.mode != "vertex":
        name = judge_options(criterion).judge_model
        judge = judges.get(name) or judges.setdefault(name, resolve_judge(name))
    template_path = spec.template_path
    return MetricPlan(
        name=spec.name,
        mode=adk.mode if adk else "template",
        criterion=criterion,
        options=raw if isinstance(raw, dict) else {"threshold": raw},
        judge=judge,
        adk=adk,
        template=load_template(template_path) if template_path else None,
        rates_conversation=spec.rates_conversation,
    )


def _check_priced(plans: list[MetricPlan], prices: dict[str, dict[str, float]]) -> None:
    from tracegrade.scoring.judging.budget import price_for

    for plan in plans:
        if plan.judge is not None and price_for(plan.judge.model, prices) is None:
            raise ConfigError(
                f"--judge-budget-usd: the judge '{plan.judge.name}' of {plan.name} has no price; "
                f"add '{plan.judge.model}' under tracegrade.prices (USD per 1M tokens)"
            )
