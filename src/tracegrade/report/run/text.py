"""`render_terminal`: the summary `tracegrade run` and `tracegrade report` show.

A header naming what ran, a table of cases (repeats passed, each gating metric against its
bound, errors, latency, tokens, cost), the run-level budgets, why each failing case failed
(trajectories side by side), the errors apart from the failures, and the verdict with the
exit code it gives.
"""

from __future__ import annotations

from collections.abc import Iterator

from rich import box
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from tracegrade.report import explain, unevaluated
from tracegrade.report.judges import usage_lines
from tracegrade.report.models import CaseReport, RunInfo, RunReport, Totals
from tracegrade.report.run.table import STYLE, case_table
from tracegrade.report.simulator import simulator_lines
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
from tracegrade.terminal_safe import scrubbed


def render_terminal(report: RunReport, width: int | None = 100, color: bool = False) -> str:
    """The summary for a terminal `width` columns wide; None: piped, every column whole."""
    return to_text(
        _renderables(scrubbed(report), width or UNBOUNDED), width=width or UNBOUNDED, color=color
    )


def _renderables(report: RunReport, width: int) -> Iterator[RenderableType]:
    sections = [
        _header(report),
        case_table(report, width),
        *(section(report) for section in (_run_metrics, _unevaluated, _not_run, _failures)),
        _errors(report),
    ]
    for section in sections:
        shown = list(section)
        yield from shown
        if shown:
            yield Text()
    yield Text(
        "\n".join(
            totals_lines(report.totals)
            + usage_lines(report.judges, report.judge_errors)
            + simulator_lines(report.simulator)
        )
    )
    yield _verdict(report)


def _header(report: RunReport) -> Iterator[RenderableType]:
    return run_header(report.run, report.scoring.scoring_id)


def run_header(run: RunInfo, scoring_id: str) -> Iterator[Text]:
    """What ran, with what, and which scoring: the first lines of the summary and of a
    large run's overview."""
    sets = ", ".join(f"{s.eval_set_id} ({plural(s.cases or 0, 'case')})" for s in run.eval_sets)
    yield Text(f"Run {run.run_id} · agent {run.agent or DASH}", style="bold")
    yield Text(f"eval sets {sets} · repeats {run.repeats or 1}")
    yield Text(f"models {', '.join(run.models) or DASH} · started {run.started_at or DASH}")
    yield Text(
        f"adk {run.adk_version or DASH} · tracegrade {run.tracegrade_version or DASH}"
        f" · commit {(run.git_commit or DASH)[:12]} · scoring {scoring_id}"
    )


def _run_metrics(report: RunReport) -> Iterator[RenderableType]:
    shown = [m for m in report.metrics if m.gating or m.breached]
    if not shown:
        return
    table = Table(box=box.SIMPLE_HEAD, padding=0, show_edge=False)
    for title in ("run metric", "mean", "p50", "p95", "max"):
        table.add_column(title, justify="left" if title == "run metric" else "right", no_wrap=True)
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
    # Routing spans to shards by trace id splits a run: this shard may lack only some.
    yield Text(
        "  Spans routed to several shards? The others may hold these turns: score them "
        f"together, `tracegrade score --run {report.run.run_id} --db SHARD1 --db SHARD2`"
    )


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
    if report.judge_errors:
        broken.append(f"{plural(report.judge_errors, 'judged turn')} not evaluated (judge errors)")
    line += "".join(f"; {b}" for b in broken) + f" → exit {exit_meaning(report.exit_code)}"
    return Text(line, style=f"bold {STYLE.get(report.verdict, '')}".strip())
