"""The monitor page: each metric of scored traffic over the last 24 hours (hourly points), 7
days (hourly) or 30 days (daily), read from the `metric_series` view, with the scoring rule's
thresholds drawn across and a mark where `service.version` changed.

A point is one bucket of one service version: a deploy shows as the first point of the new
version, and the version mark sits at that version's first turn. The thresholds are those of
the chosen rule's latest scoring (its criteria's threshold, max, p50 and p95 budgets).
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass
from urllib.parse import urlencode

from tracegrade.report.models import Criterion
from tracegrade.report.pages.charts import Rule, budget_rules
from tracegrade.report.pages.sql import rows
from tracegrade.report.pages.traces import BadFilter
from tracegrade.report.queries import Row, find_scoring, iso_utc
from tracegrade.report.summary import scoring_info
from tracegrade.report.values import as_float, as_int, as_str
from tracegrade.store.reader import Reader
from tracegrade.store.turn_facts import version as facts_version

# window → (its length in seconds, the series' grain)
WINDOWS = {"24h": (86_400, "hour"), "7d": (7 * 86_400, "hour"), "30d": (30 * 86_400, "day")}


@dataclass(frozen=True)
class SeriesPoint:
    t_ms: int
    """The bucket's start, epoch milliseconds."""
    first_ms: int
    """The first turn of this version in the bucket: where the plot draws the point."""
    at: str | None
    version: str | None
    mean: float | None
    p95: float | None
    turns: int
    breaches: int
    errors: int


@dataclass(frozen=True)
class VersionMark:
    t_ms: int
    at: str | None
    label: str


@dataclass(frozen=True)
class MetricPlot:
    metric: str
    points: list[SeriesPoint]
    rules: list[Rule]
    """Horizontal lines: the metric's thresholds and budgets in the rule's criteria."""


@dataclass(frozen=True)
class MonitorPage:
    window: str
    rule: str | None
    rules: list[str | None]
    agent: str | None
    service: str | None
    start_ms: int
    end_ms: int
    plots: list[MetricPlot]
    versions: list[VersionMark]
    windows: tuple[str, ...] = tuple(WINDOWS)

    def traces_query(self) -> str:
        """The traces page's query for this window's turns (of this agent and service)."""
        values = {"since": self.window, "agent": self.agent, "service": self.service}
        return urlencode({k: v for k, v in values.items() if v})

    def query(self, **changes: str | None) -> str:
        """This page's address query, changed as given (for the window and rule links)."""
        values = {"window": self.window, "rule": self.rule, "agent": self.agent,
                  "service": self.service, **changes}  # fmt: skip
        return urlencode({k: v for k, v in values.items() if v})


def build_monitor_page(
    reader: Reader,
    window: str = "24h",
    rule: str | None = None,
    agent: str | None = None,
    service: str | None = None,
    now_ns: int | None = None,
) -> MonitorPage:
    if window not in WINDOWS:
        raise BadFilter(f"window must be one of {', '.join(WINDOWS)}, not {window!r}")
    seconds, grain = WINDOWS[window]
    end_us = (time.time_ns() if now_ns is None else now_ns) // 1000
    start_us = end_us - seconds * 1_000_000
    rules = {as_str(r["rule"]): str(r["scoring_id"]) for r in rows(reader, "traffic_rules")}
    found = series_points(reader, grain, start_us, rule, agent, service)
    by_metric: dict[str, list[Row]] = defaultdict(list)
    for row in found:
        by_metric[str(row["metric"])].append(row)
    criteria = _criteria(reader, rules.get(rule) if rule in rules else _latest(rules))
    plots = [
        MetricPlot(metric, [_point(r) for r in points], _rules(criteria.get(metric), points))
        for metric, points in sorted(by_metric.items())
    ]
    return MonitorPage(
        window, rule, list(rules), agent, service, start_us // 1000, end_us // 1000, plots,
        version_marks(found),
    )  # fmt: skip


def series_points(
    reader: Reader,
    grain: str,
    since_us: int,
    rule: str | None = None,
    agent: str | None = None,
    service: str | None = None,
) -> list[Row]:
    """The window's points (queries/report/series_points.sql): the turns of traces with
    fresh facts read from those, made by this tracegrade's SQL (a server whose SQL differs
    holds none fresh by it, and the page rebuilds every turn, into the same rows)."""
    return rows(reader, "series_points", grain, since_us, rule, agent, service, facts_version())


def _latest(rules: dict[str | None, str]) -> str | None:
    return next(reversed(rules.values()), None) if len(rules) == 1 else None


def _criteria(reader: Reader, scoring_id: str | None) -> dict[str, Criterion]:
    if scoring_id is None:
        return {}
    info = scoring_info(find_scoring(reader, scoring_id, None))
    return {c.metric: c for c in info.criteria}


def _rules(criterion: Criterion | None, points: list[Row]) -> list[Rule]:
    if criterion is not None:
        return budget_rules(criterion)
    # Without the rule's criteria (several rules shown at once): the bound the scores carry.
    bounds = {as_float(p["threshold"]) for p in points} - {None}
    return [Rule(b, f"threshold {b:g}") for b in sorted(x for x in bounds if x is not None)]


def _point(row: Row) -> SeriesPoint:
    t_us = int(row["bucket_us"])
    return SeriesPoint(
        t_ms=t_us // 1000,
        first_ms=int(row["first_us"]) // 1000,
        at=iso_utc(t_us),
        version=as_str(row["service_version"]),
        mean=as_float(row["mean"]),
        p95=as_float(row["p95"]),
        turns=as_int(row["turns_scored"]) or 0,
        breaches=as_int(row["breaches"]) or 0,
        errors=as_int(row["errors"]) or 0,
    )


def version_marks(found: list[Row]) -> list[VersionMark]:
    """Where each service version after the window's first began: its first turn."""
    first: dict[str | None, int] = {}
    for row in found:
        version, at = as_str(row["service_version"]), int(row["first_us"])
        first[version] = min(at, first.get(version, at))
    ordered = sorted(first.items(), key=lambda item: item[1])
    return [
        VersionMark(at // 1000, iso_utc(at), f"version {version or '(none)'}")
        for version, at in ordered[1:]
    ]
