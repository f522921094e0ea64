"""`render_overview`: a large run in a screen or two.

What ran, the cases by verdict, each gating metric over the case repeats, the run's budgets,
the worst failures and errors a line or two each with a count of the rest, where the full
detail is, the totals and the verdict with its exit code.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from rich import box
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from tracegrade.report.overview.build import RunOverview, WorstCase
from tracegrade.report.run.text import run_header
from tracegrade.report.values import (
    comparator,
    count,
    exit_meaning,
    ms,
    num,
    pct,
    plural,
    to_text,
    usd,
)
from tracegrade.terminal_safe import scrubbed

_STYLE = {"passed": "green", "failed": "red", "error": "yellow", "errors": "yellow"}


def render_overview(overview: RunOverview, width: int = 100, color: bool = False) -> str:
    return to_text(_renderables(scrubbed(overview), width), width=width, color=color)


def _renderables(o: RunOverview, width: int) -> Iterator[RenderableType]:
    yield from _header(o)
    yield Text()
    yield from _cases(o)
    yield Text()
    yield from _metrics(o)
    yield from _worst("Worst failures", o.worst_failed, o.counts.failed, "failing", width)
    yield from _worst("Errors", o.worst_errored, o.counts.with_errors, "erroring", width)
    yield Text(
        "Every case, repeat and turn is in the JSON and JUnit reports: "
        f"tracegrade report {o.run.run_id} --json PATH --junit PATH",
        style="dim",
    )
    yield Text()
    yield Text("\n".join(_totals(o)))
    yield _verdict(o)


def _header(o: RunOverview) -> Iterator[Text]:
    return run_header(o.run, o.scoring.scoring_id)


def _cases(o: RunOverview) -> Iterator[Text]:
    c = o.counts
    yield Text(
        f"{count(c.cases)} cases: {count(c.passed)} passed, {count(c.failed)} failed"
        f" ({count(c.flaky)} flaky), {count(c.errored)} errored,"
        f" {count(c.not_evaluated)} not evaluated"
    )
    yield Text(
        f"{plural(o.totals.turns, 'turn')} in {plural(o.total_repeats, 'case repeat')};"
        f" {plural(o.errored_repeats, 'repeat')} errored ({pct(o.error_rate)},"
        f" {pct(o.scoring.max_error_rate)} allowed)"
    )


def _metrics(o: RunOverview) -> Iterator[RenderableType]:
    for metric, reason in sorted(o.scoring.not_evaluated.items()):
        yield Text(f"not evaluated: {metric} ({reason})", style="yellow")
    bounds = {c.metric: c for c in o.scoring.criteria}
    table = Table(box=box.SIMPLE_HEAD, padding=(0, 1, 0, 0), show_edge=False)
    for title in ("metric", "bound", "mean", "failed", "budgets"):
        table.add_column(title, justify="left" if title in ("metric", "budgets") else "right")
    for m in o.case_metrics:
        c = bounds[m.metric]
        bound = c.threshold if c.threshold is not None else c.max
        failed = f"{count(m.failed_repeats)} of {count(m.judged_repeats)} repeats"
        style = "red" if m.failed_repeats else ""
        table.add_row(m.metric, f"{comparator(c.better)} {num(bound)}", num(m.mean),
                      Text(failed, style=style), "")  # fmt: skip
    for r in (r for r in o.metrics if (r.gating and r.metric not in _shown(o)) or r.breached):
        breached = Text("; ".join(r.breached) or "within budget", style="red" if r.breached else "")
        table.add_row(r.metric, "run", num(r.mean), "", breached)
    yield table
    yield Text()


def _shown(o: RunOverview) -> set[str]:
    return {m.metric for m in o.case_metrics}


def _worst(
    title: str, shown: Sequence[WorstCase], total: int, what: str, width: int
) -> Iterator[Text]:
    if not total:
        return
    style = "bold red" if what == "failing" else "bold yellow"
    yield Text(f"{title} ({len(shown)} of {count(total)} {what} cases, worst first)", style=style)
    for case in shown:
        judged = case.repeats - case.errored_repeats
        repeats = (
            f"{case.passed_repeats} of {judged} judged repeats passed"
            if what == "failing"
            else f"{case.errored_repeats} of {case.repeats} repeats errored"
        )
        yield Text(f"  {case.eval_set_id}/{case.case_id} — {repeats}")
        if case.finding:
            yield Text(_clip(f"    {case.finding}", width))
    rest = total - len(shown)
    if rest:
        yield Text(f"  … and {count(rest)} more {what} {'case' if rest == 1 else 'cases'}")
    yield Text()


def _clip(line: str, width: int) -> str:
    return line if len(line) <= width else line[: width - 1] + "…"


def _totals(o: RunOverview) -> list[str]:
    t = o.totals
    priced = "" if t.priced_turns == t.turns else f" ({t.priced_turns} of {t.turns} turns priced)"
    return [
        f"Totals: {plural(t.turns, 'turn')}, {count(t.errored_turns)} errored"
        f" · latency p50 {ms(t.latency_p50_ms)} ms, p95 {ms(t.latency_p95_ms)} ms"
        f" · tokens {count(t.total_tokens)}",
        f"Cost: {usd(t.cost_usd)}{priced}",
    ]


def _verdict(o: RunOverview) -> Text:
    c = o.counts
    line = (
        f"{o.verdict.upper()}: {count(c.passed)}/{count(c.cases)} cases passed, "
        f"{count(c.failed)} failed, {count(c.errored)} errored"
    )
    broken = [f"{m.metric} over budget" for m in o.metrics if m.status == "failed"]
    line += "".join(f"; {b}" for b in broken) + f" → exit {exit_meaning(o.exit_code)}"
    return Text(line, style=f"bold {_STYLE.get(o.verdict, '')}".strip())
