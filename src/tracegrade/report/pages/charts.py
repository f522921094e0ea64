"""The plots' data: histograms of each metric's turn scores with its budget lines, and each
metric's run score across the last runs of the same eval sets.

Bins are counted in SQL (queries/report/metric_bins.sql): a page carries a few numbers per
chart whatever the run's size. The browser draws them with Observable Plot (static/charts.js);
each chart's numbers are also a table, for readers without JavaScript.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from tracegrade.report.models import Criterion
from tracegrade.report.pages.sql import rows
from tracegrade.report.queries import iso_utc
from tracegrade.report.values import as_float, num
from tracegrade.scoring.metrics import available_metrics
from tracegrade.store.reader import Reader

# The three charts every run shows first, in this order; other metrics follow.
_FIRST = ("latency", "token_usage", "cost_usd")
_TARGET_BINS = 20


@dataclass(frozen=True)
class Bin:
    x0: float
    x1: float
    turns: int


@dataclass(frozen=True)
class Rule:
    """A vertical line: a budget or threshold the metric is held to."""

    x: float
    label: str


@dataclass(frozen=True)
class Histogram:
    metric: str
    unit: str
    gating: bool
    turns: int
    bins: list[Bin]
    """Only the bins holding a turn: one bar (one SVG mark) each."""
    rules: list[Rule]
    domain: tuple[float, float]
    """The x axis: every bin's edges, held or not."""

    @property
    def title(self) -> str:
        return f"{self.metric} per turn" + (f" ({self.unit})" if self.unit else "")


@dataclass(frozen=True)
class TrendPoint:
    run_id: str
    started_at: str | None
    score: float
    current: bool


@dataclass(frozen=True)
class Trend:
    metric: str
    unit: str
    gating: bool
    points: list[TrendPoint]
    """Oldest run first; one dot (one SVG mark) each."""
    rules: list[Rule]


def histograms(reader: Reader, scoring_id: str, criteria: Sequence[Criterion]) -> list[Histogram]:
    """One per metric with finite turn scores: latency, tokens and cost first, then the
    gating metrics, then the rest, by name."""
    bounds = {c.metric: c for c in criteria}
    found = []
    for row in rows(reader, "metric_ranges", scoring_id):
        metric, criterion = str(row["metric"]), bounds.get(str(row["metric"]))
        rules, unit = budget_rules(criterion), _unit(metric)
        marks = [r.x for r in rules]
        lo, width, count = bin_edges(float(row["lo"]), float(row["hi"]), marks, ratio=not unit)
        bins = [
            Bin(_edge(lo, b["bin"], width), _edge(lo, b["bin"] + 1, width), int(b["turns"]))
            for b in rows(reader, "metric_bins", lo, width, count, scoring_id, metric)
        ]
        domain = (lo, _edge(lo, count, width))
        gating = criterion is not None
        found.append(Histogram(metric, unit, gating, int(row["turns"]), bins, rules, domain))
    return sorted(found, key=_order)


def _order(chart: Histogram | Trend) -> tuple[int, int, str]:
    first = _FIRST.index(chart.metric) if chart.metric in _FIRST else len(_FIRST)
    return first, 0 if chart.gating else 1, chart.metric


def budget_rules(criterion: Criterion | None) -> list[Rule]:
    """The lines a metric's criterion draws: its threshold, its per-turn max, its p50 and
    p95 budgets."""
    if criterion is None:
        return []
    sign = "≥" if criterion.better == "higher" else "≤"
    found = [
        (criterion.threshold, f"threshold {sign} {num(criterion.threshold)}"),
        (criterion.max, f"max {num(criterion.max)}"),
        (criterion.p50, f"p50 budget {num(criterion.p50)}"),
        (criterion.p95, f"p95 budget {num(criterion.p95)}"),
    ]
    return [Rule(value, label) for value, label in found if value is not None]


def bin_edges(
    lo: float, hi: float, marks: Sequence[float] = (), ratio: bool = False
) -> tuple[float, float, int]:
    """(first edge, width, bins): about 20 bins of a round width (1, 2 or 5 × 10^k) from 0
    or below, covering the scores and the budget lines; a `ratio` (a unitless score) within
    [0, 1] gets tenths."""
    low, high = min([lo, *marks, 0.0]), max([hi, *marks])
    if ratio and low >= 0 and high <= 1:
        return 0.0, 0.1, 10
    if high <= low:
        return low, 1.0, 1
    width = _round_step((high - low) / _TARGET_BINS)
    start = math.floor(low / width) * width
    count = max(1, math.ceil((high - start) / width))
    if start + count * width <= high:
        count += 1  # a score on the top edge gets a bin of its own
    return start, width, count


def _edge(lo: float, index: int, width: float) -> float:
    """A bin edge without float noise (0.30000000000000004 is 0.3)."""
    return round(lo + index * width, 12)


def _round_step(raw: float) -> float:
    power = 10.0 ** math.floor(math.log10(raw))
    return next(step * power for step in (1.0, 2.0, 5.0, 10.0) if step * power >= raw)


def trends(
    reader: Reader, run_id: str, criteria: Sequence[Criterion], last: int = 10
) -> list[Trend]:
    """Each metric's run score over the last `last` runs of the same eval sets (this one
    included), oldest first; none when this run has no predecessor."""
    found: dict[str, list[TrendPoint]] = {}
    for row in rows(reader, "metric_trends", run_id, last):
        score = as_float(row["score"])
        if score is not None:
            point = TrendPoint(
                str(row["run_id"]), iso_utc(row["started_us"]), score, row["run_id"] == run_id
            )
            found.setdefault(str(row["metric"]), []).append(point)
    if len({p.run_id for points in found.values() for p in points}) < 2:
        return []
    bounds = {c.metric: c for c in criteria}
    made = [
        Trend(metric, _unit(metric), metric in bounds, points, _run_rules(bounds.get(metric)))
        for metric, points in found.items()
    ]
    return sorted(made, key=_order)


def _run_rules(criterion: Criterion | None) -> list[Rule]:
    """A run's score is a mean: only the threshold applies to it as a line."""
    return [r for r in budget_rules(criterion) if r.label.startswith("threshold")]


def _unit(metric: str) -> str:
    return _units().get(metric, "")


@functools.cache
def _units() -> dict[str, str]:
    """The shipped metrics' units; a metric from the user's own folder has none here."""
    return {name: spec.unit for name, spec in available_metrics().items()}
