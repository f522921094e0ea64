"""`traffic_to_markdown`: a traffic scoring as GitHub Markdown, for a scheduled job's
`$GITHUB_STEP_SUMMARY`: the selection, one table (overall, per agent, model and service),
the budgets broken and the verdict. Free text is escaped as in the run summary."""

from __future__ import annotations

from collections.abc import Iterator

from tracegrade.report.run.markdown import code, md
from tracegrade.report.traffic.build import TrafficReport, TrafficRow
from tracegrade.report.traffic.text import describe
from tracegrade.report.values import DASH, exit_meaning, ms, pct, plural, usd

_ICON = {"passed": "✅", "failed": "❌", "errors": "💥"}
_HEAD = "| | turns | errored | over budget | tool errors | cost/turn | latency p50/p95 (ms) |"


def traffic_to_markdown(report: TrafficReport) -> str:
    return "\n".join(_lines(report)) + "\n"


def _lines(report: TrafficReport) -> Iterator[str]:
    icon = _ICON.get(report.verdict, "")
    scoring = code(report.scoring.scoring_id)
    kind = "window" if "window" in report.selection else "scoring"  # a rule's window
    yield f"## {icon} tracegrade traffic: {report.verdict} ({kind} {scoring})"
    yield ""
    yield f"{md(describe(report.selection))} · {plural(report.overall.turns, 'turn')} scored"
    yield ""
    yield _HEAD
    yield "|" + "---|" * 7
    yield _row("**all**", report.overall)
    for label, rows in (("agent", report.by_agent), ("model", report.by_model),
                        ("service", report.by_service)):  # fmt: skip
        for row in rows:
            yield _row(f"{label} {md(row.name)}", row)
    yield ""
    for metric in report.metrics:
        if metric.breached and metric.status == "failed":
            yield f"- run budget: {code(metric.metric)} {md('; '.join(metric.breached))}"
    yield f"_{md(report.caveat)}_"
    yield ""
    yield f"**{report.verdict.upper()}** → exit code {md(exit_meaning(report.exit_code))}"


def _row(label: str, row: TrafficRow) -> str:
    budgets = ", ".join(f"{md(m)} {n}" for m, n in sorted(row.budgets_breached.items())) or DASH
    latency = (
        DASH if row.latency_p50_ms is None else f"{ms(row.latency_p50_ms)}/{ms(row.latency_p95_ms)}"
    )
    cells = [label, str(row.turns), f"{row.errored_turns} ({pct(row.error_rate)})", budgets,
             str(row.tool_errors), usd(row.cost_per_turn_usd), latency]  # fmt: skip
    return "| " + " | ".join(cells) + " |"
