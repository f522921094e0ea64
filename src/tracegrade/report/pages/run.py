"""The run page: one scoring of one eval run, for the file `--html` writes and for the live
page of `tracegrade serve` alike.

Large runs stay small: the numbers (totals, metrics, histograms) are aggregated in SQL, the
case table shows the worst cases first up to a limit, and only the worst cases are read in
full, with the waterfalls of their failing turns and of the slowest turns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tracegrade.report.diff.build import RunDiff
from tracegrade.report.models import RunInfo, RunMetric, ScoringInfo, Totals
from tracegrade.report.pages.cases import CaseView, case_view
from tracegrade.report.pages.charts import Histogram, Trend, histograms, trends
from tracegrade.report.pages.sql import rows
from tracegrade.report.pages.turn import TurnView, turn_views
from tracegrade.report.queries import Row, find_run_scoring, run_row, score_rows
from tracegrade.report.run.build import build_cases
from tracegrade.report.summary import run_info, run_metrics, scoring_info
from tracegrade.report.values import as_dict, as_float, as_int, as_list
from tracegrade.store.reader import Reader


@dataclass(frozen=True)
class PageLimits:
    """How much of a run one page shows: a 10k-turn run's file stays under a megabyte
    (sizes in docs/pages.md)."""

    cases: int = 500
    """rows of the case table, the worst first"""
    case_offset: int = 0
    details: int = 50
    """failed or errored cases shown in full"""
    waterfalls: int = 30
    """waterfalls of failing or errored turns of those cases"""
    slowest: int = 10
    """the slowest turns, each with its waterfall"""
    trend_runs: int = 10


@dataclass(frozen=True)
class CaseRow:
    eval_set_id: str
    case_id: str
    verdict: str
    repeats: int
    passed_repeats: int
    errored_repeats: int
    flaky: bool
    failed_metrics: list[str]
    turns: int
    latency_p50_ms: float | None
    tokens: int | None


@dataclass(frozen=True)
class SlowTurn:
    turn_id: str
    eval_set_id: str
    case_id: str
    repeat: int
    turn_index: int
    latency_ms: float | None
    total_tokens: int | None
    is_error: bool


@dataclass(frozen=True)
class RunPage:
    run: RunInfo
    scoring: ScoringInfo
    verdict: str
    exit_code: int
    error_rate: float | None
    counts: dict[str, int]
    """cases by verdict: passed, failed, error, not_evaluated"""
    metrics: list[RunMetric]
    totals: Totals
    cases: list[CaseRow]
    cases_total: int
    limits: PageLimits
    details: list[CaseView]
    turns: list[TurnView]
    slowest: list[SlowTurn]
    histograms: list[Histogram]
    trends: list[Trend]
    diff: RunDiff | None = None
    failing_total: int = field(default=0)
    """failed or errored cases, detailed or not"""


def build_run_page(
    reader: Reader,
    scoring_id: str | None = None,
    run_id: str | None = None,
    diff: RunDiff | None = None,
    limits: PageLimits | None = None,
    waterfalls: bool = True,
) -> RunPage:
    """The given scoring; else the latest of `run_id`; else of the latest scored run; with
    `diff` (against a baseline) when given, and (`waterfalls`) the turn views of the worst
    turns and the slowest."""
    limits = limits or PageLimits()
    scoring = find_run_scoring(reader, scoring_id, run_id, "the traffic page")
    info = scoring_info(scoring)
    run = run_info(run_row(reader, str(scoring["run_id"])))
    sid, rid = info.scoring_id, run.run_id
    worst = rows(reader, "failing_cases", sid, sid, limits.details)
    chosen = [t for w in worst for t in as_list(w["turn_ids"])][: limits.waterfalls]
    overview = _overview(reader, rid, sid, limits, chosen if waterfalls else [])
    keys = [(str(w["eval_set_id"]), str(w["case_id"])) for w in worst]
    counts = {str(r["verdict"]): int(r["cases"]) for r in rows(reader, "case_counts", sid)}
    turn_facts = overview["turn"] if waterfalls else []
    return RunPage(
        run=run,
        scoring=info,
        verdict=str(scoring["verdict"]),
        exit_code=int(scoring["exit_code"]),
        error_rate=as_float(scoring["error_rate"]),
        counts=counts,
        metrics=run_metrics(score_rows(reader, sid, "run"), info.criteria),
        totals=_totals(overview["total"][0]),
        cases=[_case_row(r) for r in overview["case"]],
        cases_total=sum(counts.values()),
        limits=limits,
        details=[case_view(rid, c, info.criteria) for c in build_cases(reader, sid, keys)],
        turns=turn_views(reader, turn_facts, sid),
        slowest=[_slow(r) for r in overview["turn"] if r["rank"] == 1],
        histograms=histograms(reader, sid, info.criteria),
        trends=trends(reader, rid, info.criteria, limits.trend_runs),
        diff=diff,
        failing_total=counts.get("failed", 0) + counts.get("error", 0),
    )


def _overview(
    reader: Reader, run_id: str, scoring_id: str, limits: PageLimits, chosen: list[str]
) -> dict[str, list[Row]]:
    """run_overview.sql's rows by kind (total, case, turn), each in order; a turn chosen
    and among the slowest comes once."""
    found: dict[str, list[Row]] = {"total": [], "case": [], "turn": []}
    seen: set[str] = set()
    for row in rows(
        reader, "run_overview", run_id, scoring_id, limits.cases, limits.case_offset, chosen,
        limits.slowest,
    ):  # fmt: skip
        data = as_dict(row["data"])
        if row["kind"] == "turn":
            if data["turn_id"] in seen:
                continue
            seen.add(data["turn_id"])
        found[str(row["kind"])].append(data)
    return found


def _case_row(row: Row) -> CaseRow:
    return CaseRow(
        eval_set_id=str(row["eval_set_id"]),
        case_id=str(row["case_id"]),
        verdict=str(row["verdict"]),
        repeats=int(row["repeats"]),
        passed_repeats=int(row["passed_repeats"]),
        errored_repeats=int(row["errored_repeats"]),
        flaky=bool(row["flaky"]),
        failed_metrics=[str(m) for m in as_list(row["failed_metrics"])],
        turns=int(row["turns"]),
        latency_p50_ms=as_float(row["latency_p50_ms"]),
        tokens=as_int(row["tokens"]),
    )


def _slow(row: Row) -> SlowTurn:
    return SlowTurn(
        turn_id=str(row["turn_id"]),
        eval_set_id=str(row["eval_set_id"]),
        case_id=str(row["case_id"]),
        repeat=int(row["repeat"]),
        turn_index=int(row["turn_index"]),
        latency_ms=as_float(row["latency_ms"]),
        total_tokens=as_int(row["total_tokens"]),
        is_error=bool(row["is_error"]),
    )


def _totals(row: Row) -> Totals:
    return Totals(
        turns=int(row["turns"]),
        errored_turns=int(row["errored_turns"]),
        latency_p50_ms=as_float(row["latency_p50_ms"]),
        latency_p95_ms=as_float(row["latency_p95_ms"]),
        input_tokens=as_int(row["input_tokens"]),
        output_tokens=as_int(row["output_tokens"]),
        total_tokens=as_int(row["total_tokens"]),
        cost_usd=_usd(as_float(row["cost_usd"])),
        priced_turns=int(row["priced_turns"] or 0),
    )


def _usd(value: float | None) -> float | None:
    """Rounded as the report rounds its sums (summary.usd_sum)."""
    return None if value is None else round(value, 10)
