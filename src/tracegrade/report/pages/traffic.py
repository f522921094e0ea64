"""The traffic page: a scoring of production turns, per agent and per model, its metrics'
distributions, and the worst turns first, each linking to its turn view."""

from __future__ import annotations

from dataclasses import dataclass

from tracegrade.report.pages.charts import Histogram, histograms
from tracegrade.report.pages.sql import rows
from tracegrade.report.pages.turn import TurnView, build_turn_views, clip
from tracegrade.report.queries import Row, iso_utc
from tracegrade.report.traffic.build import TrafficReport, build_traffic_report
from tracegrade.report.traffic.text import describe
from tracegrade.report.values import as_float, as_int, as_list, as_str
from tracegrade.store.reader import Reader

# The user's text in the worst-turns table, cut after this many characters.
_USER_TEXT = 160


@dataclass(frozen=True)
class WorstTurn:
    turn_id: str
    root_agent: str | None
    models: list[str]
    started_at: str | None
    latency_ms: float | None
    total_tokens: int | None
    is_error: bool
    tool_errors: int
    """Tool calls that failed: such a turn ranks right after the turns that crashed."""
    failed: list[str]
    cost_usd: float | None
    user_text: str | None


@dataclass(frozen=True)
class TrafficPage:
    report: TrafficReport
    selection: str
    histograms: list[Histogram]
    worst: list[WorstTurn]
    worst_total: int
    offset: int
    turns: list[TurnView]
    """Waterfalls of the worst turns (the file's; the live page links to them)."""


def build_traffic_page(
    reader: Reader, scoring_id: str, limit: int = 100, offset: int = 0, waterfalls: int = 0
) -> TrafficPage:
    report = build_traffic_report(reader, scoring_id)
    found = rows(reader, "worst_turns", scoring_id, limit, offset)
    worst = [_worst(r) for r in found]
    return TrafficPage(
        report=report,
        selection=describe(report.selection),
        histograms=histograms(reader, scoring_id, report.scoring.criteria),
        worst=worst,
        worst_total=int(found[0]["total"]) if found else 0,
        offset=offset,
        turns=build_turn_views(reader, [t.turn_id for t in worst[:waterfalls]], scoring_id),
    )


def _worst(row: Row) -> WorstTurn:
    return WorstTurn(
        turn_id=str(row["turn_id"]),
        root_agent=as_str(row["root_agent"]),
        models=[str(m) for m in as_list(row["models"])],
        started_at=iso_utc(row["started_us"]),
        latency_ms=as_float(row["latency_ms"]),
        total_tokens=as_int(row["total_tokens"]),
        is_error=bool(row["is_error"]),
        tool_errors=as_int(row["tool_errors"]) or 0,
        failed=[str(m) for m in as_list(row["failed"])],
        cost_usd=as_float(row["cost_usd"]),
        user_text=clip(as_str(row["user_text"]), _USER_TEXT),
    )
