"""Judging the scored turns: each configured judged metric planned (its judge resolved, its
criterion read as ADK reads it) and run through the `judgements` cache."""

from __future__ import annotations

from collections.abc import Sequence

import duckdb

from tracegrade.errors import ConfigError
from tracegrade.scoring.criteria import ScoringConfig
from tracegrade.scoring.judging.metrics import ADK_JUDGED, judge_options, validated_criterion
from tracegrade.scoring.judging.plan import MetricPlan
from tracegrade.scoring.judging.resolve import Judge, import_judge_modules, resolve_judge
from tracegrade.scoring.judging.runner import JudgingSummary, run_judges
from tracegrade.scoring.judging.settings import JudgeSettings, Stop
from tracegrade.scoring.judging.templates import load_template
from tracegrade.scoring.metrics import MetricSpec
from tracegrade.scoring.prices import default_prices


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
