"""The run-wide parts of a report: what ran, what it was held to, and its totals."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from tracegrade.report.models import (
    Criterion,
    EvalSetInfo,
    RunInfo,
    RunMetric,
    ScoringInfo,
    Totals,
    TurnReport,
)
from tracegrade.report.queries import Row, iso_utc
from tracegrade.report.values import as_dict, as_float, as_int, as_list, as_str, num, plural
from tracegrade.scoring.metrics import available_metrics


def run_info(row: Row) -> RunInfo:
    return RunInfo(
        run_id=str(row["run_id"]),
        started_at=iso_utc(row["started_us"]),
        agent=as_str(row["agent"]),
        models=[str(m) for m in as_list(row["models"])],
        eval_sets=[_eval_set(as_dict(s)) for s in as_list(row["eval_sets"])],
        repeats=as_int(row["repeats"]),
        parallel=as_int(row["parallel"]),
        git_commit=as_str(row["git_commit"]),
        adk_version=as_str(row["adk_version"]),
        tracegrade_version=as_str(row["tracegrade_version"]),
    )


def _eval_set(entry: dict[str, object]) -> EvalSetInfo:
    return EvalSetInfo(
        eval_set_id=str(entry.get("eval_set_id")),
        path=as_str(entry.get("path")),
        sha256=as_str(entry.get("sha256")),
        cases=as_int(entry.get("cases")),
    )


def scoring_info(row: Row) -> ScoringInfo:
    config = as_dict(row["config"])
    criteria = as_dict(config.get("criteria"))
    return ScoringInfo(
        scoring_id=str(row["scoring_id"]),
        scored_at=iso_utc(row["scored_us"]),
        tracegrade_version=as_str(row["tracegrade_version"]),
        criteria=[_criterion(name, as_dict(criteria[name])) for name in sorted(criteria)],
        not_evaluated={str(k): str(v) for k, v in as_dict(config.get("not_evaluated")).items()},
        repeat_policy=as_dict(config.get("repeat_policy")),
        max_error_rate=as_float(config.get("max_error_rate")),
        allow_not_evaluated=bool(config.get("allow_not_evaluated")),
    )


def _criterion(metric: str, entry: dict[str, object]) -> Criterion:
    better = entry.get("better")  # recorded with the scoring; older scorings lack it
    return Criterion(
        metric=metric,
        better=better if better in ("higher", "lower") else _shipped_better().get(metric),
        threshold=as_float(entry.get("threshold")),
        max=as_float(entry.get("max")),
        p50=as_float(entry.get("p50")),
        p95=as_float(entry.get("p95")),
    )


@functools.cache
def _shipped_better() -> dict[str, str]:
    """Which way each shipped metric improves, for scorings recorded before the direction
    was kept with them."""
    return {name: spec.better for name, spec in available_metrics().items()}


def run_metrics(rows: list[Row], criteria: Sequence[Criterion]) -> list[RunMetric]:
    by_metric = {c.metric: c for c in criteria}
    metrics = []
    for row in rows:
        detail = as_dict(row["detail"])
        criterion = by_metric.get(str(row["metric"]))
        metrics.append(
            RunMetric(
                metric=str(row["metric"]),
                gating=criterion is not None,
                status=str(row["status"]),
                mean=as_float(row["score"]),
                p50=as_float(detail.get("p50")),
                p95=as_float(detail.get("p95")),
                max=as_float(detail.get("max")),
                evaluated=as_int(detail.get("evaluated")) or 0,
                errored=as_int(detail.get("errored")) or 0,
                failed_turns=as_int(detail.get("failed_turns")) or 0,
                breached=_breaches(detail, criterion),
                not_evaluated=as_int(detail.get("not_evaluated")) or 0,
                not_evaluated_reasons=[str(r) for r in as_list(detail.get("reasons"))],
            )
        )
    return sorted(metrics, key=lambda m: (not m.gating, m.metric))


def _breaches(detail: dict[str, object], criterion: Criterion | None) -> list[str]:
    found = []
    for q in ("p50", "p95"):
        value, bound = as_float(detail.get(q)), as_float(detail.get(f"{q}_bound"))
        if value is not None and bound is not None and value > bound:
            found.append(f"{q} {num(value)} over budget {num(bound)}")
    failed = as_int(detail.get("failed_turns")) or 0
    if failed and criterion is not None:
        found.append(f"{plural(failed, 'turn')} {_turn_bound(criterion)}")
    return found


def _turn_bound(criterion: Criterion) -> str:
    if criterion.max is not None:
        return f"over max {num(criterion.max)}"
    side = "under" if criterion.better == "higher" else "over"
    return f"{side} threshold {num(criterion.threshold)}"


def totals(turns: Sequence[TurnReport]) -> Totals:
    latencies = [t.latency_ms for t in turns if t.error is None and t.latency_ms is not None]
    costs = [t.cost_usd for t in turns if t.cost_usd is not None]
    return Totals(
        turns=len(turns),
        errored_turns=sum(1 for t in turns if t.error is not None),
        latency_p50_ms=percentile(latencies, 0.5),
        latency_p95_ms=percentile(latencies, 0.95),
        input_tokens=_sum([t.input_tokens for t in turns]),
        output_tokens=_sum([t.output_tokens for t in turns]),
        total_tokens=_sum([t.total_tokens for t in turns]),
        cost_usd=usd_sum(costs),
        priced_turns=len(costs),
    )


def usd_sum(costs: Sequence[float]) -> float | None:
    """Rounded to 1e-10 USD: float noise (0.000645 + ...01) would show in the JSON report."""
    return round(sum(costs), 10) if costs else None


def _sum(values: list[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def percentile(values: Sequence[float], q: float) -> float | None:
    """Linear interpolation between closest ranks: DuckDB's quantile_cont."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
