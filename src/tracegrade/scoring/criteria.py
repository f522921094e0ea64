"""Criteria: which metrics gate, at what thresholds, and how repeats and errors decide.

Reads ADK's `test_config.json` as ADK does: `criteria` maps a metric to a bare number
(the threshold) or an object (`threshold`, `match_type`, `ignore_args`, ...; snake_case or
camelCase). tracegrade's own settings go under a top-level `tracegrade` key, which ADK
ignores, so one file serves both tools:

    {"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "IN_ORDER"}},
     "tracegrade": {"criteria": {"token_usage": {"max": 4000}, "latency": {"p95": 8000}},
                    "repeat_policy": "majority", "max_error_rate": 0.1,
                    "prices": {"my-model": {"input": 0.3, "output": 2.5}}}}

Our metrics may also sit in `criteria` directly when the file is not shared with ADK.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from tracegrade.errors import ConfigError
from tracegrade.scoring.metrics import MetricSpec, resolve_name

ADK_DEFAULT_CRITERIA: dict[str, Any] = {
    "tool_trajectory_avg_score": 1.0,
    "response_match_score": 0.8,
}

# ADK metrics that need an LLM judge or Vertex AI: reported as not evaluated, never gating.
JUDGE_METRICS = frozenset(
    {
        "final_response_match_v2",
        "response_evaluation_score",
        "rubric_based_final_response_quality_v1",
        "rubric_based_tool_use_quality_v1",
        "rubric_based_multi_turn_trajectory_quality_v1",
        "hallucinations_v1",
        "safety_v1",
        "multi_turn_task_success_v1",
        "multi_turn_trajectory_quality_v1",
        "multi_turn_tool_use_quality_v1",
        "per_turn_user_simulator_quality_v1",
    }
)

# Fields of ADK's BaseCriterion that mean nothing to our scorers; accepted and ignored.
_ADK_BASE_FIELDS = frozenset({"include_intermediate_responses_in_final", "judge_model_options"})
_GATES = ("threshold", "max", "p50", "p95")
_TRAJECTORY_OPTIONS = frozenset(
    {"match_type", "ignore_args", "args_match", "args_match_per_tool", "unordered_parallel_calls"}
)
MATCH_TYPES = ("EXACT", "IN_ORDER", "ANY_ORDER", "SUBSET", "SUPERSET", "PRECISION", "RECALL")
ARG_MODES = ("EXACT", "SUBSET", "IGNORE")


@dataclass(frozen=True)
class Criterion:
    """One gating metric. `threshold`: the case mean must reach it (or, for lower-is-better
    metrics, stay at or under it); `max`: every turn at or under it; `p50`/`p95`: the run's
    percentile at or under it."""

    metric: str
    threshold: float | None = None
    max: float | None = None
    p50: float | None = None
    p95: float | None = None
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RepeatPolicy:
    """How a case's repeats decide it: all must pass, a majority, or at least `k`
    (applied in queries/scoring/03_levels.sql)."""

    kind: Literal["all", "majority", "at_least"] = "all"
    k: int = 1


@dataclass(frozen=True)
class ScoringConfig:
    criteria: dict[str, Criterion]
    not_evaluated: dict[str, str] = field(default_factory=dict)
    repeat_policy: RepeatPolicy = RepeatPolicy()
    max_error_rate: float = 0.0
    prices: dict[str, dict[str, float]] = field(default_factory=dict)


def parse_config(raw: dict[str, Any] | None, specs: dict[str, MetricSpec]) -> ScoringConfig:
    """A test_config.json document (None: ADK's defaults) into a `ScoringConfig`."""
    raw = raw or {"criteria": ADK_DEFAULT_CRITERIA}
    ours = _object(raw.get("tracegrade", {}), "tracegrade")
    entries = {**_object(raw.get("criteria", {}), "criteria")}
    for name, value in _object(ours.get("criteria", {}), "tracegrade.criteria").items():
        if name in entries:
            raise ConfigError(f"criteria: '{name}' is set both in criteria and tracegrade.criteria")
        entries[name] = value
    criteria: dict[str, Criterion] = {}
    skipped: dict[str, str] = {}
    for name, value in entries.items():
        if name in JUDGE_METRICS:
            skipped[name] = "needs an LLM judge or Vertex AI, which tracegrade does not run"
            continue
        metric = resolve_name(name, specs)
        if metric is None:
            known = ", ".join(sorted(specs))
            raise ConfigError(f"criteria: unknown metric '{name}' (known: {known})")
        criteria[metric] = parse_criterion(metric, value, specs[metric])
    return ScoringConfig(
        criteria=criteria,
        not_evaluated=skipped,
        repeat_policy=_repeat_policy(ours.get("repeat_policy", "all")),
        max_error_rate=_rate(ours.get("max_error_rate", 0.0)),
        prices=_prices(ours.get("prices", {})),
    )


def parse_criterion(metric: str, value: Any, spec: MetricSpec) -> Criterion:
    if isinstance(value, bool) or not isinstance(value, int | float | dict):
        raise ConfigError(f"criteria.{metric}: expected a number or an object, got {value!r}")
    if not isinstance(value, dict):
        if spec.better == "higher":
            return Criterion(metric, threshold=float(value))
        return Criterion(metric, max=float(value))
    fields = {_snake(k): v for k, v in value.items()}
    gates = {k: _number(metric, k, fields.pop(k)) for k in _GATES if k in fields}
    for key in _ADK_BASE_FIELDS:
        fields.pop(key, None)
    options = _trajectory_options(metric, fields) if metric == "tool_trajectory_avg_score" else {}
    if fields.keys() - options.keys():
        unknown = ", ".join(sorted(fields.keys() - options.keys()))
        raise ConfigError(f"criteria.{metric}: unknown setting {unknown}")
    if not gates:
        raise ConfigError(f"criteria.{metric}: give a threshold (or max, p50, p95)")
    return Criterion(metric, options=options, **gates)


def _trajectory_options(metric: str, fields: dict[str, Any]) -> dict[str, Any]:
    options = {k: fields[k] for k in _TRAJECTORY_OPTIONS if k in fields}
    match_type = (
        str(options.get("match_type", "EXACT")).strip().upper().replace("-", "_").replace(" ", "_")
    )
    if match_type not in MATCH_TYPES:
        raise ConfigError(
            f"criteria.{metric}.match_type: {options['match_type']!r} "
            f"is not one of {', '.join(MATCH_TYPES)}"
        )
    args_match = str(
        options.get("args_match", "IGNORE" if options.get("ignore_args") else "EXACT")
    ).upper()
    per_tool = options.get("args_match_per_tool", {})
    for mode in [args_match, *per_tool.values()]:
        if str(mode).upper() not in ARG_MODES:
            raise ConfigError(
                f"criteria.{metric}: argument match {mode!r} is not one of {', '.join(ARG_MODES)}"
            )
    return {
        **options,
        "match_type": match_type,
        "args_match": args_match,
        "args_match_per_tool": {tool: str(mode).upper() for tool, mode in per_tool.items()},
        "unordered_parallel_calls": bool(options.get("unordered_parallel_calls", False)),
    }


def _repeat_policy(value: Any) -> RepeatPolicy:
    if value in ("all", "majority"):
        return RepeatPolicy(value)
    if isinstance(value, dict) and set(value) == {"at_least"}:
        k = value["at_least"]
        if isinstance(k, int) and not isinstance(k, bool) and k >= 1:
            return RepeatPolicy("at_least", k)
    raise ConfigError(
        f"tracegrade.repeat_policy: {value!r} must be 'all', 'majority' "
        'or {"at_least": k} with k >= 1'
    )


def _rate(value: Any) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1:
        return float(value)
    raise ConfigError(f"tracegrade.max_error_rate: {value!r} must be a number from 0 to 1")


def _prices(value: Any) -> dict[str, dict[str, float]]:
    prices = _object(value, "tracegrade.prices")
    for model, entry in prices.items():
        if not isinstance(entry, dict) or not {"input", "output"} <= entry.keys():
            raise ConfigError(
                f"tracegrade.prices.{model}: needs 'input' and 'output' (USD per 1M tokens)"
            )
        for key, number in entry.items():
            _number(f"prices.{model}", key, number)
    return prices


def _number(metric: str, key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"criteria.{metric}.{key}: expected a number, got {value!r}")
    return float(value)


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: expected an object, got {type(value).__name__}")
    return value


def _snake(key: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()
