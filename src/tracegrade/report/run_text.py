"""`render_terminal`: the summary `tracegrade run` and `tracegrade report` show.

A header naming what ran, a table of cases (repeats passed, each gating metric against its
bound, errors, latency, tokens, cost), the run-level budgets, why each failing case failed
(trajectories side by side), the errors apart from the failures, and the verdict with the
exit code it gives.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import groupby

from rich import box
from rich.console import JustifyMethod, RenderableType
from rich.table import Table
from rich.text import Text

from tracegrade.report import explain, unevaluated
from tracegrade.report.models import CaseReport, Criterion, RunReport, Totals
from tracegrade.report.summary import totals
from tracegrade.report.values import (
    DASH,
    comparator,
    count,
    exit_meaning,
    header,
    ms,
    num,
    pct,
    plural,
    to_text,
    usd,
)

_STYLE = {"passed": "green", "failed": "red", "error": "yellow", "errors": "yellow"}


def render_terminal(report: RunReport, width: int = 100, color: bool = False) -> str:
    return to_text(_renderables(report), width=width, color=color)


def _renderables(report: RunReport) -> Iterator[RenderableType]:
    for section in (_header, _case_table, _run_metrics, _unevaluated, _not_run, _failures, _errors):
        shown = list(section(report))
        yield from shown
        if shown:
            yield Text()
    yield Text("\n".join(totals_lines(report.totals)))
    yield _verdict(report)


def _header(report: RunReport) -> Iterator[RenderableType]:
    run = report.run
    sets = ", ".join(f"{s.eval_set_id} ({plural(s.cases or 0, 'case')})" for s in run.eval_sets)
    yield Text(f"Run {run.run_id} · agent {run.agent or DASH}", style="bold")
    yield Text(f"eval sets {sets} · repeats {run.repeats or 1}")
    yield Text(f"models {', '.join(run.models) or DASH} · started {run.started_at or DASH}")
    yield Text(
        f"adk {run.adk_version or DASH} · tracegrade {run.tracegrade_version or DASH}"
        f" · commit {(run.git_commit or DASH)[:12]} · scoring {report.scoring.scoring_id}"
    )


def _case_metrics(report: RunReport) -> list[Criterion]:
    """Gating metrics judged per case (a threshold or a per-turn max), not run budgets."""
    return [c for c in report.scoring.criteria if c.threshold is not None or c.max is not None]


def _case_table(report: RunReport) -> Iterator[Table]:
    metrics = _case_metrics(report)
    # The box's blank separator is the only space between columns: ten must fit in 100.
    table = Table(box=box.SIMPLE_HEAD, padding=0, show_edge=False, show_footer=True)
    if 0 < report.totals.priced_turns < report.totals.turns:
        table.caption = "* cost of the priced turns only (see Totals)"
    longest = max((len(c.case_id) for c in report.cases), default=4)
    _column(table, "case", f"{len(report.cases)} cases", "left", min_width=longest)
    _column(table, "result", report.verdict, "left", max_width=7)
    _column(table, "passed", _passed_footer(report.cases))
    for c in metrics:
        bound = c.threshold if c.threshold is not None else c.max
        _column(table, f"{header(c.metric, 10)}\n{comparator(c.better)} {num(bound)}", "")
    _column(table, "err", str(report.errored_repeats))
    for title, footer in zip(_STAT_HEADERS, _stat_cells(report.totals), strict=True):
        _column(table, title, footer)
    for eval_set, cases in groupby(report.cases, key=lambda c: c.eval_set_id):
        table.add_row(Text(f"{eval_set}:", style="bold"))
        for case in cases:
            table.add_row(*_case_cells(case, metrics))
    yield table


def _column(
    table: Table,
    title: str,
    footer: str,
    justify: JustifyMethod = "right",
    min_width: int | None = None,
    max_width: int | None = None,
) -> None:
    # Fold rather than cut: a narrow terminal wraps a value, never hides part of it.
    table.add_column(
        title, footer=footer, justify=justify, overflow="fold", min_width=min_width,
        max_width=max_width,
    )  # fmt: skip


_STAT_HEADERS = ("latency\n(ms)\np50/p95", "tokens", "cost")


def _stat_cells(t: Totals) -> tuple[str, str, str]:
    latency = DASH if t.latency_p50_ms is None else f"{ms(t.latency_p50_ms)}/{ms(t.latency_p95_ms)}"
    partly = 0 < t.priced_turns < t.turns
    return latency, count(t.total_tokens), usd(t.cost_usd) + ("*" if partly else "")


def _passed_footer(cases: Sequence[CaseReport]) -> str:
    return f"{sum(1 for c in cases if c.verdict == 'passed')}/{len(cases)}"


def _case_cells(case: CaseReport, metrics: Sequence[Criterion]) -> list[str | Text]:
    verdict = case.verdict + (" (flaky)" if case.flaky else "")
    cells: list[str | Text] = [
        case.case_id,
        Text(verdict, style=_STYLE.get(case.verdict, "")),
        f"{case.passed_repeats}/{case.repeats}",
    ]
    cells += [_metric_cell(case, c.metric) for c in metrics]
    cells.append(str(case.errored_repeats) if case.errored_repeats else "")
    stats = totals([t for r in case.repeat_results for t in r.turns])
    cells += list(_stat_cells(stats))
    return cells


def _metric_cell(case: CaseReport, metric: str) -> Text:
    scores = [s for r in case.repeat_results for s in r.scores if s.metric == metric]
    values = [s.score for s in scores if s.score is not None]
    if not values:
        return Text(DASH)
    statuses = {s.status for s in scores}
    mark, style = ("✗", "red") if "failed" in statuses else ("✓", "green")
    return Text(f"{num(sum(values) / len(values))} {mark}", style=style)


def _run_metrics(report: RunReport) -> Iterator[RenderableType]:
    shown = [m for m in report.metrics if m.gating or m.breached]
    if not shown:
        return
    table = Table(box=box.SIMPLE_HEAD, padding=0, show_edge=False)
    for title in ("run metric", "mean", "p50", "p95", "max"):
        _column(table, title, "", "left" if title == "run metric" else "right")
    table.add_column("budgets")
    for m in shown:
        style = "red" if m.breached else ""
        within = "not evaluated" if m.mean is None and m.not_evaluated else "within budget"
        breached = Text("; ".join(m.breached) or within, style=style)
        table.add_row(m.metric, num(m.mean), num(m.p50), num(m.p95), num(m.max), breached)
    yield table


def _unevaluated(report: RunReport) -> Iterator[RenderableType]:
    reasons = unevaluated.run_reasons(report)
    if not reasons:
        return
    cases = [c for c in report.cases if c.verdict == "not_evaluated"]
    if not cases:
        title = "Not evaluated in part (the cases were judged on their other criteria)"
    else:
        allowed = " (allowed: allow_not_evaluated)" if report.scoring.allow_not_evaluated else ""
        title = f"Not evaluated ({plural(len(cases), 'case')} with no criterion evaluated){allowed}"
    yield Text(title, style="bold yellow")
    yield Text("\n".join(f"  {line}" for line in reasons))


def _not_run(report: RunReport) -> Iterator[RenderableType]:
    if not report.not_run_repeats:
        return
    planned = report.not_run_repeats + report.total_repeats
    yield Text(
        f"Not run ({report.not_run_repeats} of {planned} case repeats): the run was stopped "
        "before them, so it cannot pass",
        style="bold yellow",
    )
    missing = [f"{c.eval_set_id}/{c.case_id}" for c in report.cases if c.verdict == "not_run"]
    if missing:
        yield Text(f"  {', '.join(missing)}")


def _failures(report: RunReport) -> Iterator[RenderableType]:
    failing = [c for c in report.cases if c.verdict == "failed"]
    if not failing:
        return
    yield Text(f"Failures ({plural(len(failing), 'case')})", style="bold red")
    for case in failing:
        yield Text(f"{case.eval_set_id}/{case.case_id} — {_case_line(case)}")
        for finding in explain.failures(case, report.scoring.criteria):
            yield Text(f"  {explain.repeats_label(finding.repeats)} failed")
            yield Text("\n".join(explain.as_lines(finding, "    ")))


def _case_line(case: CaseReport) -> str:
    judged = case.passed_repeats + case.failed_repeats
    flaky = "flaky: " if case.flaky else ""
    return f"{flaky}{case.passed_repeats} of {judged} judged repeats passed"


def _errors(report: RunReport) -> Iterator[RenderableType]:
    errored = [c for c in report.cases if c.errored_repeats]
    if not errored:
        return
    allowed = pct(report.scoring.max_error_rate)
    yield Text(
        f"Errors ({plural(len(errored), 'case')}) — errors are not failures: "
        f"{report.errored_repeats} of {report.total_repeats} repeats errored "
        f"({pct(report.error_rate)}, {allowed} allowed)",
        style="bold yellow",
    )
    for case in errored:
        yield Text(f"{case.eval_set_id}/{case.case_id}")
        for finding in explain.errors(case):
            yield Text(f"  {explain.repeats_label(finding.repeats)} errored")
            yield Text("\n".join(explain.as_lines(finding, "    ")))


def totals_lines(t: Totals) -> list[str]:
    priced = "" if t.priced_turns == t.turns else f" ({t.priced_turns} of {t.turns} turns priced)"
    return [
        f"Totals: {plural(t.turns, 'turn')}, {t.errored_turns} errored"
        f" · latency p50 {ms(t.latency_p50_ms)} ms, p95 {ms(t.latency_p95_ms)} ms"
        f" · tokens {count(t.total_tokens)}",
        f"Cost: {usd(t.cost_usd)}{priced}",
    ]


def _verdict(report: RunReport) -> Text:
    verdicts = [c.verdict for c in report.cases]
    line = (
        f"{report.verdict.upper().replace('_', ' ')}: "
        f"{verdicts.count('passed')}/{len(verdicts)} cases passed, "
        f"{verdicts.count('failed')} failed, {verdicts.count('error')} errored"
    )
    for verdict in ("not_evaluated", "not_run"):
        if verdict in verdicts:
            line += f", {verdicts.count(verdict)} {verdict.replace('_', ' ')}"
    broken = [f"{m.metric} over budget" for m in report.metrics if m.status == "failed"]
    line += "".join(f"; {b}" for b in broken) + f" → exit {exit_meaning(report.exit_code)}"
    return Text(line, style=f"bold {_STYLE.get(report.verdict, '')}".strip())
