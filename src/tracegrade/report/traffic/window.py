"""`build_window_report`: one window of an online rule (the last 24h, the 24h before) as a
traffic report, and `diff_windows`: the last window against the one before it.

Serve scores traffic in many small passes, each its own scoring, so a rule's two latest
scorings are two passes of a few turns. A window gathers the turn-level scores of every
scoring of the rule whose turns started in it (queries/report/rule_window_scores.sql), and
is read through the same `TrafficReport` and `TrafficDiff` as one scoring, so the terminal,
Markdown and JSON say of a window what they say of a scoring. What a scoring stores for the
whole selection (its run-level rows, its verdict) is computed here from the window's turns,
held to the criteria of the rule's latest scoring in the window.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Any

from tracegrade._resources import queries_dir
from tracegrade.errors import ConfigError, NothingSelected
from tracegrade.exit_codes import ExitCode
from tracegrade.report.diff_measures import DiffTolerances
from tracegrade.report.judges import JudgeUsage
from tracegrade.report.models import Criterion, RunMetric
from tracegrade.report.queries import check_rule, find_scoring, iso_utc
from tracegrade.report.summary import run_metrics, scoring_info
from tracegrade.report.traffic.build import SAMPLING_CAVEAT, TrafficReport, traffic_rows
from tracegrade.report.traffic_diff.build import TrafficDiff, compare_reports
from tracegrade.report.values import as_float, as_int
from tracegrade.scoring.selection import parse_since, window_text
from tracegrade.scoring.verdict import VERDICTS
from tracegrade.store.reader import Reader, records


@dataclass(frozen=True)
class RuleWindow:
    rule: str
    seconds: float
    end_ns: int
    """Excluded: the window is [end - seconds, end)."""

    @classmethod
    def last(cls, rule: str, window: str, now_ns: int | None = None) -> RuleWindow:
        """The last `window` (`24h`, `7d`, `90m`) of `rule`, up to now."""
        try:
            seconds = parse_since(window).total_seconds()
        except ConfigError:
            raise ConfigError(
                f"--window {window!r}: give a number and a unit, e.g. 90m, 24h or 7d"
            ) from None
        if seconds <= 0:
            raise ConfigError(f"--window {window!r}: a window is longer than 0")
        return cls(rule, seconds, time.time_ns() if now_ns is None else now_ns)

    @property
    def start_ns(self) -> int:
        return self.end_ns - int(self.seconds * 1e9)

    def before(self) -> RuleWindow:
        """The window of the same length just before this one."""
        return RuleWindow(self.rule, self.seconds, self.start_ns)

    @property
    def label(self) -> str:
        """How the report and the diff name it: `checkout 24h to 2026-12-03T13:00:00Z`."""
        return f"{self.rule} {window_text(self.seconds)} to {iso_utc(self.end_ns // 1000)}"

    def params(self) -> list[Any]:
        return [self.rule, self.start_ns, self.end_ns]


_METRICS = """
SELECT metric, avg(score) AS score, quantile_cont(score, [0.5, 0.95]) AS q, max(score) AS max,
       count(score) AS evaluated, count(*) FILTER (status = 'error') AS errored,
       count(*) FILTER (status = 'failed') AS failed_turns,
       count(*) FILTER (status = 'not_evaluated') AS not_evaluated,
       list_sort(list_distinct(coalesce(list(
           coalesce(detail->>'reason', 'the metric had no value for it')
       ) FILTER (status = 'not_evaluated'), []))) AS reasons
FROM ({scores}) w
GROUP BY metric
ORDER BY metric
"""

_SCORINGS = """
SELECT arg_max(w.scoring_id, g.scored_at) AS latest, count(DISTINCT w.scoring_id) AS scorings
FROM ({scores}) w JOIN scorings g USING (scoring_id)
"""

# The judges' work of the scorings the window's scores came from (a pass that also scored
# turns outside the window counts whole: judge usage is kept per scoring, not per turn).
_JUDGES = """
SELECT metric, min(judge_model) AS judge_model, sum(judgements) AS judgements,
       sum(cached) AS cached, sum(calls) AS calls, sum(failed) AS failed,
       sum(unjudged) AS unjudged, sum(input_tokens) AS input_tokens,
       sum(output_tokens) AS output_tokens, sum(cost_usd) AS cost_usd,
       max(budget_usd) AS budget_usd
FROM judge_usage
WHERE scoring_id IN (SELECT DISTINCT scoring_id FROM ({scores}) w)
GROUP BY metric
ORDER BY metric
"""


def build_window_report(
    reader: Reader, window: RuleWindow, purpose: str = "report"
) -> TrafficReport:
    """The rule's turns of `window` as one traffic report; NothingSelected (`nothing to
    {purpose}`) when the rule scored none of them."""
    check_rule(reader, window.rule)
    scores, params = _window_scores(), window.params()
    ((latest, scorings),) = [
        (row["latest"], row["scorings"])
        for row in records(reader, _SCORINGS.format(scores=scores), params)
    ]
    if latest is None:
        raise NothingSelected(
            f"nothing to {purpose}: rule '{window.rule}' scored no turn that started in the "
            f"{window_text(window.seconds)} to {iso_utc(window.end_ns // 1000)} "
            "(widen the window: `tracegrade runs --traffic` lists the rule's scorings)"
        )
    info = scoring_info(find_scoring(reader, str(latest), None))
    overall, by_agent, by_model, by_service = traffic_rows(reader, scores, params)
    metrics = run_metrics(_run_rows(reader, scores, params, info.criteria), info.criteria)
    code = _exit_code(metrics, overall.error_rate, info.max_error_rate)
    return TrafficReport(
        scoring=info.model_copy(update={"scoring_id": window.label}),
        selection={
            "rule": window.rule,
            "window": window_text(window.seconds),
            "from": iso_utc(window.start_ns // 1000),
            "to": iso_utc(window.end_ns // 1000),
            "scorings": int(scorings),
            "criteria_of": str(latest),
        },
        verdict=VERDICTS[code],
        exit_code=int(code),
        overall=overall,
        by_agent=by_agent,
        by_model=by_model,
        by_service=by_service,
        metrics=metrics,
        caveat=SAMPLING_CAVEAT,
        judges=_judges(reader, scores, params),
    )


def diff_windows(
    reader: Reader, window: RuleWindow, tolerances: DiffTolerances | None = None
) -> TrafficDiff:
    """`window` (the last) against the window of the same length before it."""
    earlier = window.before()
    before = build_window_report(reader, earlier, "compare")
    after = build_window_report(reader, window, "compare")
    return compare_reports(before, after, earlier.label, window.label, tolerances)


@functools.cache
def _window_scores() -> str:
    return (queries_dir() / "report" / "rule_window_scores.sql").read_text()


def _run_rows(
    reader: Reader, scores: str, params: list[Any], criteria: list[Criterion]
) -> list[dict[str, Any]]:
    """The window's run-level rows, as a scoring stores them (queries/scoring/03_levels.sql):
    each metric's distribution held to its criterion's p50 and p95 budgets."""
    by_metric = {c.metric: c for c in criteria}
    rows = []
    for row in records(reader, _METRICS.format(scores=scores), params):
        criterion = by_metric.get(str(row["metric"]))
        p50, p95 = (as_float(q) for q in (row["q"] or [None, None]))
        p50_bound = criterion.p50 if criterion else None
        p95_bound = criterion.p95 if criterion else None
        passed = None
        if row["score"] is not None and (p50_bound is not None or p95_bound is not None):
            passed = (p50_bound is None or (p50 or 0) <= p50_bound) and (
                p95_bound is None or (p95 or 0) <= p95_bound
            )
        detail = {"p50": p50, "p95": p95, "max": row["max"], "p50_bound": p50_bound,
                  "p95_bound": p95_bound, "reasons": row["reasons"],
                  **{k: as_int(row[k]) for k in
                     ("evaluated", "errored", "failed_turns", "not_evaluated")}}  # fmt: skip
        rows.append({"metric": row["metric"], "score": row["score"], "detail": detail,
                     "status": _status(row["score"], passed)})  # fmt: skip
    return rows


def _status(score: Any, passed: bool | None) -> str:
    if score is None:
        return "not_evaluated"
    if passed is None:
        return "informational"
    return "passed" if passed else "failed"


def _exit_code(
    metrics: list[RunMetric], error_rate: float | None, max_error_rate: float | None
) -> ExitCode:
    """The traffic gate of one scoring (scoring.verdict), over the window's turns."""
    if max_error_rate is not None and (error_rate or 0.0) > max_error_rate:
        return ExitCode.ERRORS_OVER_LIMIT
    failed = any(m.status == "failed" or (m.gating and m.failed_turns) for m in metrics)
    return ExitCode.GATE_FAILED if failed else ExitCode.OK


def _judges(reader: Reader, scores: str, params: list[Any]) -> list[JudgeUsage]:
    return [
        JudgeUsage(
            metric=str(row["metric"]),
            judge_model=str(row["judge_model"]),
            **{k: int(row[k]) for k in ("judgements", "cached", "calls", "failed", "unjudged")},
            input_tokens=as_int(row["input_tokens"]),
            output_tokens=as_int(row["output_tokens"]),
            cost_usd=as_float(row["cost_usd"]),
            budget_usd=as_float(row["budget_usd"]),
        )
        for row in records(reader, _JUDGES.format(scores=scores), params)
    ]
