"""Online scoring rules (`tracegrade serve --rules rules.json`), read and checked at start.

    {"quiet_s": 10,
     "rules": [
       {"name": "budgets", "where": "agent_name = 'support'", "sample": 0.25,
        "criteria": {"tool_error_rate": {"max": 0.2}, "latency": {"p95": 8000}}},
       {"name": "quality", "sample": 0.05,
        "criteria": {"task_completion": {
            "threshold": 0.8, "judge_model_options": {"judge_model": "gemini-2.5-flash"}}},
        "judge_budget": {"usd_per_day": 2.0, "calls_per_day": 500}}]}

A rule's `where` is a condition over the `turns` view, checked by the guard `score --where`
passes; `sample` keeps a share of traces by trace id, as `score --sample` does; `criteria`
is a criteria object as in test_config.json (with `prices` and `judge_imports` beside it).
Every mistake is one `ConfigError` naming the file, the rule and the field.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tracegrade.errors import ConfigError, DatabaseError, EvalSetError
from tracegrade.evalset.diagnostics import read_json
from tracegrade.scoring.criteria import ScoringConfig, parse_config
from tracegrade.scoring.metrics import MetricSpec
from tracegrade.store.readonly import check_condition

DEFAULT_QUIET_S = 10.0
"""A turn is scored once its trace's last span was stored this long ago: ADK ends the
invocation span last, and exporters send a turn's spans within a batch delay (5 s by
default in the OTel SDK's BatchSpanProcessor), so a late span is rare after 10 s."""
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class JudgeBudget(BaseModel):
    """How much a rule's judges may spend per day (UTC): at the first limit reached, judge
    calls stop until the next day, and judged metrics are not evaluated."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    usd_per_day: float | None = Field(default=None, ge=0)
    calls_per_day: int | None = Field(default=None, ge=0)


class RuleEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    where: str | None = None
    sample: float = Field(default=1.0, ge=0, le=1)
    criteria: dict[str, Any]
    prices: dict[str, Any] = Field(default_factory=dict)
    judge_imports: list[str] = Field(default_factory=list)
    judge_budget: JudgeBudget = JudgeBudget()
    backfill: bool = False
    """Score the turns stored before this version of the rule was first served, too."""


class RulesFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    quiet_s: float = Field(default=DEFAULT_QUIET_S, ge=0)
    poll_s: float = Field(default=1.0, gt=0)
    rules: list[dict[str, Any]]


@dataclass(frozen=True)
class Rule:
    """One checked rule, with its version: a hash of what decides its scores."""

    name: str
    where: str | None
    sample: float
    config: ScoringConfig
    budget: JudgeBudget
    backfill: bool
    version: str
    definition: dict[str, Any]

    @property
    def judged(self) -> bool:
        return any("judge" in c.options for c in self.config.criteria.values())


@dataclass(frozen=True)
class Rules:
    rules: tuple[Rule, ...]
    quiet_s: float
    poll_s: float
    path: Path | None = None
    """The file they were read from, for messages."""


def load_rules(path: Path, specs: dict[str, MetricSpec], *, backfill: bool = False) -> Rules:
    """The rules file at `path`, every rule checked (`backfill`: every rule backfills)."""
    where = f"rules file '{path}'"
    try:
        _, document = read_json(path, "rules file")
    except EvalSetError as exc:
        raise ConfigError(str(exc)) from None
    if not isinstance(document, dict):
        raise ConfigError(f'{where}: expected a JSON object {{"rules": [...]}}')
    try:
        parsed = RulesFile.model_validate(document)
    except ValidationError as exc:
        raise ConfigError(f"{where}: {_problem(exc)}") from None
    rules = tuple(
        parse_rule(raw, specs, f"{where} rule {_label(raw, i)}", backfill=backfill)
        for i, raw in enumerate(parsed.rules)
    )
    names = [rule.name for rule in rules]
    twice = next((name for name in names if names.count(name) > 1), None)
    if twice is not None:
        raise ConfigError(f"{where}: two rules are named '{twice}': give each its own name")
    if not rules:
        raise ConfigError(f'{where}: no rules: add one to "rules", or serve without --rules')
    return Rules(rules, parsed.quiet_s, parsed.poll_s, path)


def parse_rule(
    raw: Any, specs: dict[str, MetricSpec], where: str, *, backfill: bool = False
) -> Rule:
    """One rule object, checked: its fields, its `where`, its criteria and judges."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: expected an object with name, criteria, where, sample")
    try:
        entry = RuleEntry.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(f"{where}: {_problem(exc)}") from None
    if not _NAME.match(entry.name):
        raise ConfigError(
            f"{where}: name {entry.name!r}: use up to 64 letters, digits, '.', '_' or '-'"
        )
    if entry.where is not None:
        try:
            check_condition(entry.where, "turns")
        except DatabaseError as exc:
            raise ConfigError(f"{where}: where {entry.where!r}: {exc}") from None
    config = _criteria(entry, specs, where)
    return Rule(
        name=entry.name,
        where=entry.where,
        sample=entry.sample,
        config=config,
        budget=entry.judge_budget,
        backfill=backfill or entry.backfill,
        version=_version(entry),
        definition=entry.model_dump(mode="json"),
    )


def _criteria(entry: RuleEntry, specs: dict[str, MetricSpec], where: str) -> ScoringConfig:
    from tracegrade.scoring.judging import check_judges

    ours = {"prices": entry.prices, "judge_imports": entry.judge_imports}
    try:
        config = parse_config({"criteria": entry.criteria, "tracegrade": ours}, specs)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    needs = [name for name in config.criteria if specs[name].needs_expected]
    if needs:
        raise ConfigError(
            f"{where}: criteria.{needs[0]} needs expected turns, which traffic has none of: "
            "use a reference-free metric (docs/metrics.md)"
        )
    try:
        check_judges(config, specs)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    if entry.judge_budget.usd_per_day is not None:
        _check_priced(config, specs, where)
    return config


def _check_priced(config: ScoringConfig, specs: dict[str, MetricSpec], where: str) -> None:
    from tracegrade.scoring.judging import plan_metrics
    from tracegrade.scoring.judging.budget import price_for
    from tracegrade.scoring.prices import default_prices

    prices = default_prices() | config.prices
    judged = [s for s in specs.values() if s.judge and s.name in config.criteria]
    for plan in plan_metrics(config, judged):
        if plan.judge is not None and price_for(plan.judge.model, prices) is None:
            raise ConfigError(
                f"{where}: judge_budget.usd_per_day: the judge '{plan.judge.name}' of "
                f"{plan.name} has no price: add '{plan.judge.model}' to the rule's prices "
                "(USD per 1M tokens), or budget calls_per_day only"
            )


def _version(entry: RuleEntry) -> str:
    """What decides the rule's scores; not its budget or backfill, which change no score."""
    deciding = {k: getattr(entry, k) for k in ("where", "sample", "criteria", "prices")}
    text = json.dumps(deciding, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _label(raw: Any, index: int) -> str:
    name = raw.get("name") if isinstance(raw, dict) else None
    return f"'{name}'" if isinstance(name, str) else f"#{index + 1}"


def _problem(exc: ValidationError) -> str:
    first = exc.errors()[0]
    field = ".".join(str(p) for p in first["loc"]) or "the document"
    if first["type"] == "missing":
        return f"{field} is required"
    if first["type"] == "extra_forbidden":
        return f"unknown field {field!r}: the fields are {_FIELDS}"
    return f"{field}: {first['msg']}"


_FIELDS = "name, where, sample, criteria, prices, judge_imports, judge_budget, backfill"
