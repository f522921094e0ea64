"""`diff_traffic`: what changed between two scorings of traffic (two windows of one online
rule, yesterday's sample and today's) — overall and per agent.

Traffic has no cases to match, so the diff is of rates and distributions, each a
`TrafficChange` with its tolerance: the share of turns that errored, the share over each
metric's budget, a judged metric's mean, the p95 latency, the cost per turn. A change
beyond its tolerance the bad way is `worse` and fails the diff (`tracegrade diff` exits 1).
Each side is read through `build_traffic_report`, so the diff sees what the reports show.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from tracegrade.report.diff_measures import DiffTolerances
from tracegrade.report.queries import ReportError, check_rule
from tracegrade.report.traffic.build import (
    TrafficReport,
    TrafficRow,
    build_traffic_report,
    traffic_scoring_exists,
)
from tracegrade.report.traffic.text import describe
from tracegrade.report.values import ms, num, pct, plural, usd
from tracegrade.store.reader import Reader, records


class TrafficChange(BaseModel):
    model_config = ConfigDict(frozen=True)

    scope: str = Field(description="'all', or 'agent NAME'")
    measure: str = Field(
        description="error_rate, breach_rate:METRIC, mean:METRIC, latency_p95_ms or "
        "cost_per_turn_usd"
    )
    before: float | None
    after: float | None
    tolerance: str = Field(description="how much worse it may get, in words")
    worse: bool
    message: str = Field(description="before → after, in words")


class TrafficDiff(BaseModel):
    model_config = ConfigDict(frozen=True)

    base_scoring_id: str
    new_scoring_id: str
    base_selection: str
    new_selection: str
    base_turns: int
    new_turns: int
    changes: list[TrafficChange] = Field(description="every measure known on both sides")
    failed: bool = Field(description="a measure got worse beyond its tolerance: exit 1")
    summary: str

    @property
    def worse(self) -> list[TrafficChange]:
        return [c for c in self.changes if c.worse]


def diff_traffic(
    reader: Reader, base: str, new: str, tolerances: DiffTolerances | None = None
) -> TrafficDiff:
    """`base` and `new` are traffic scoring ids (`list_traffic_scorings`)."""
    before, after = build_traffic_report(reader, base), build_traffic_report(reader, new)
    return compare_reports(before, after, base, new, tolerances)


def compare_reports(
    before: TrafficReport,
    after: TrafficReport,
    base: str,
    new: str,
    tolerances: DiffTolerances | None = None,
) -> TrafficDiff:
    """Two traffic reports (two scorings, or two windows of a rule), `base` and `new` naming
    them."""
    tolerances = tolerances or DiffTolerances()
    changes = [*_row_changes("all", before.overall, after.overall, tolerances)]
    changes += _metric_changes(before, after, tolerances)
    agents = {row.name: row for row in before.by_agent}
    for row in after.by_agent:
        if row.name in agents:
            changes += _row_changes(f"agent {row.name}", agents[row.name], row, tolerances)
    worse = sum(1 for c in changes if c.worse)
    return TrafficDiff(
        base_scoring_id=base,
        new_scoring_id=new,
        base_selection=describe(before.selection),
        new_selection=describe(after.selection),
        base_turns=before.overall.turns,
        new_turns=after.overall.turns,
        changes=changes,
        failed=worse > 0,
        summary=f"{plural(worse, 'measure')} worse beyond a tolerance"
        if worse
        else "nothing worse beyond a tolerance",
    )


def traffic_sides(reader: Reader, base: str, new: str) -> bool:
    """Whether `diff base new` compares two traffic scorings (True) or two eval runs
    (False); one of each is refused, naming which is which."""
    base_traffic, new_traffic = (
        traffic_scoring_exists(reader, base),
        traffic_scoring_exists(reader, new),
    )
    if base_traffic != new_traffic:
        traffic, run = (base, new) if base_traffic else (new, base)
        raise ReportError(
            f"'{traffic}' is a traffic scoring and '{run}' is not: compare two eval runs, or "
            "two traffic scorings (`tracegrade runs --traffic` lists them)"
        )
    return base_traffic


def latest_two(reader: Reader, rule: str) -> tuple[str, str]:
    """The two latest scorings of an online rule (`selection.rule`): (earlier, latest)."""
    found = records(
        reader,
        "SELECT scoring_id FROM scorings WHERE run_id IS NULL AND selection->>'rule' = ? "
        "ORDER BY scored_at DESC, scoring_id DESC LIMIT 2",
        [rule],
    )
    if not found:
        check_rule(reader, rule)  # refused, naming the closest rule that did score
    if len(found) < 2:
        raise ReportError(
            f"rule '{rule}' has {plural(len(found), 'scoring')} stored; a diff needs two "
            "(`tracegrade runs --traffic` lists them)"
        )
    return str(found[1]["scoring_id"]), str(found[0]["scoring_id"])


def _row_changes(
    scope: str, before: TrafficRow, after: TrafficRow, tolerances: DiffTolerances
) -> list[TrafficChange]:
    rise = tolerances.rate_rise
    changes = [_rate(scope, "error_rate", "errored", before.error_rate, after.error_rate, rise)]
    changes.append(_latency(scope, before.latency_p95_ms, after.latency_p95_ms, tolerances))
    changes.append(_cost(scope, before.cost_per_turn_usd, after.cost_per_turn_usd, tolerances))
    return [c for c in changes if c is not None]


def _metric_changes(
    before: TrafficReport, after: TrafficReport, tolerances: DiffTolerances
) -> list[TrafficChange]:
    """Each metric scored on both sides: the share of its turns over budget; and for a
    judged metric, its mean."""
    judged = {usage.metric for usage in before.judges}
    earlier = {m.metric: m for m in before.metrics}
    changes: list[TrafficChange] = []
    for metric in after.metrics:
        old = earlier.get(metric.metric)
        if old is None or not old.evaluated or not metric.evaluated:
            continue
        share_before = old.failed_turns / old.evaluated
        share_after = metric.failed_turns / metric.evaluated
        label = f"over {metric.metric}'s budget"
        found = _rate("all", f"breach_rate:{metric.metric}", label, share_before, share_after,
                      tolerances.rate_rise)  # fmt: skip
        if found is not None:
            changes.append(found)
        if metric.metric in judged and old.mean is not None and metric.mean is not None:
            drop = tolerances.score_drop
            changes.append(TrafficChange(
                scope="all", measure=f"mean:{metric.metric}", before=old.mean, after=metric.mean,
                tolerance=f"-{drop:g}", worse=old.mean - metric.mean > drop,
                message=f"{metric.metric} mean {num(old.mean)} → {num(metric.mean)}",
            ))  # fmt: skip
    return changes


def _rate(
    scope: str, measure: str, label: str, before: float | None, after: float | None, rise: float
) -> TrafficChange | None:
    if before is None or after is None:
        return None
    return TrafficChange(
        scope=scope, measure=measure, before=before, after=after,
        tolerance=f"+{rise:.0%} of turns", worse=after - before > rise,
        message=f"{label} {pct(before)} → {pct(after)} of turns",
    )  # fmt: skip


def _latency(
    scope: str, before: float | None, after: float | None, tolerances: DiffTolerances
) -> TrafficChange | None:
    if before is None or after is None:
        return None
    rise = after - before
    worse = rise > tolerances.latency_ms and rise > before * tolerances.latency_pct / 100
    return TrafficChange(
        scope=scope, measure="latency_p95_ms", before=before, after=after,
        tolerance=f"+{tolerances.latency_pct:g}% and +{tolerances.latency_ms:g} ms", worse=worse,
        message=f"latency p95 {ms(before)} → {ms(after)} ms",
    )  # fmt: skip


def _cost(
    scope: str, before: float | None, after: float | None, tolerances: DiffTolerances
) -> TrafficChange | None:
    if before is None or after is None:
        return None
    worse = after - before > before * tolerances.cost_pct / 100
    return TrafficChange(
        scope=scope, measure="cost_per_turn_usd", before=before, after=after,
        tolerance=f"+{tolerances.cost_pct:g}%", worse=worse,
        message=f"cost/turn {usd(before)} → {usd(after)}",
    )  # fmt: skip
