"""`render_traffic`: a traffic scoring for people, per agent, per model and per service."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rich import box
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from tracegrade.report.judges import usage_lines
from tracegrade.report.traffic.build import TrafficReport, TrafficRow
from tracegrade.report.values import (
    DASH,
    UNBOUNDED,
    count,
    exit_meaning,
    ms,
    num,
    pct,
    plural,
    to_text,
    usd,
)
from tracegrade.scoring.selection import traffic_words
from tracegrade.terminal_safe import scrubbed

_HEADERS = ("", "turns", "errored", "over budget", "repeated\ncalls", "tool\nerrors",
            "cost/turn", "latency (ms)\np50/p95")  # fmt: skip


def render_traffic(report: TrafficReport, width: int | None = 100, color: bool = False) -> str:
    return to_text(_renderables(scrubbed(report)), width=width or UNBOUNDED, color=color)


def _renderables(report: TrafficReport) -> Iterator[RenderableType]:
    overall = report.overall
    kind = "window" if "window" in report.selection else "scoring"  # a rule's window
    yield Text(f"Traffic · {kind} {report.scoring.scoring_id}", style="bold")
    yield Text(f"{describe(report.selection)} · {plural(overall.turns, 'turn')} scored")
    yield Text()
    yield _table(report)
    yield Text()
    for metric in report.metrics:
        if metric.breached and metric.status == "failed":
            yield Text(f"run budget: {metric.metric} {'; '.join(metric.breached)}", style="red")
    for line in usage_lines(report.judges):
        yield Text(line)
    for metric in report.metrics:
        if metric.metric in {u.metric for u in report.judges}:
            yield Text(f"  {metric.metric}: {metric.evaluated} of {_turns(report)} turns judged, "
                       f"mean {num(metric.mean)}")  # fmt: skip
    yield from _left_out(report.scoring.not_evaluated)
    yield Text(report.caveat, style="dim")
    yield Text(
        f"{report.verdict.upper()} → exit code {exit_meaning(report.exit_code)}",
        style="bold " + ("green" if report.verdict == "passed" else "red"),
    )


def _left_out(not_evaluated: dict[str, str]) -> Iterator[Text]:
    """The criteria left out, grouped by why: `not applicable: a, b (needs expected ...)`."""
    by_reason: dict[str, list[str]] = {}
    for metric, reason in sorted(not_evaluated.items()):
        by_reason.setdefault(reason, []).append(metric)
    for reason, metrics in by_reason.items():
        head, _, why = reason.partition(": ")
        label = head if why else "not evaluated"
        yield Text(f"{label}: {', '.join(metrics)} ({why or reason})", style="yellow")


def describe(selection: dict[str, Any]) -> str:
    """The selection in words: which turns were scored (and by which online rule)."""
    if "window" in selection:  # a rule's window (report/traffic/window.py)
        return (
            f"rule {selection.get('rule')}: turns of the {selection['window']} from "
            f"{selection.get('from')} to {selection.get('to')} "
            f"({plural(int(selection.get('scorings') or 0), 'scoring')})"
        )
    words = traffic_words(selection.get("since_s"), selection.get("sample"), selection.get("where"))
    rule = selection.get("rule")
    return f"rule {rule}: {words}" if rule else words


def _table(report: TrafficReport) -> Table:
    table = Table(box=box.SIMPLE_HEAD, padding=0, show_edge=False, show_footer=True)
    for title, footer in zip(_HEADERS, _cells(report.overall), strict=True):
        justify = "left" if title in ("", "over budget") else "right"
        table.add_column(title, footer=footer, justify=justify, overflow="fold")  # type: ignore[arg-type]
    groups = (("per agent", report.by_agent), ("per model", report.by_model),
              ("per service", report.by_service))  # fmt: skip
    for heading, rows in groups:
        table.add_row(Text(heading, style="bold"))
        for row in rows:
            table.add_row(*_cells(row))
    return table


def _cells(row: TrafficRow) -> list[str]:
    budgets = ", ".join(f"{m} {n}" for m, n in sorted(row.budgets_breached.items())) or DASH
    cost = usd(row.cost_per_turn_usd)
    if row.priced_turns < row.turns:
        cost += f" ({row.priced_turns}/{row.turns} priced)"
    latency = (
        DASH if row.latency_p50_ms is None else f"{ms(row.latency_p50_ms)}/{ms(row.latency_p95_ms)}"
    )
    return [
        row.name,
        count(row.turns),
        f"{row.errored_turns} ({pct(row.error_rate)})",
        budgets,
        str(row.consecutive_repeats) if row.duplicate_call_turns else DASH,
        str(row.tool_errors),
        cost,
        latency,
    ]


def _turns(report: TrafficReport) -> str:
    return count(report.overall.turns)
