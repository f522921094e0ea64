"""The text a failing or erroring eval-case test prints.

The findings (per failing turn: the failing metrics against their thresholds, the
expected and actual tool calls, the response against its reference) come from
`tracegrade.report.explain`, as in the terminal summary. A crash reads `ERROR:` with the
exception, because a crash is not a wrong answer and must not read like one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade.report import explain, unevaluated
from tracegrade.report.values import comparator, num
from tracegrade.terminal_safe import terminal_text

if TYPE_CHECKING:
    from tracegrade.pytest_plugin.results import EvalCaseResult, EvalRunResult

_POLICIES = {"all": "every repeat must pass", "majority": "a majority of repeats must pass"}


def _text(lines: list[str]) -> str:
    """The lines as pytest prints them to a terminal: each line's data made harmless
    there (a line break inside one is data too)."""
    return "\n".join(terminal_text(line) for line in lines)


def case_failure(result: EvalCaseResult) -> str:
    case = result.report
    lines = [f"eval case {_name(result)} failed: {_failed_metrics(result)}"]
    lines += [_repeats_line(result)] if case.repeats > 1 else []
    for finding in explain.failures(case, result.run.report.scoring.criteria):
        lines += ["", f"{explain.repeats_label(finding.repeats)} failed:"]
        lines += explain.as_lines(finding, "  ")
    for finding in explain.errors(case):  # the repeats that crashed, when others did not
        lines += ["", f"{explain.repeats_label(finding.repeats)} errored:"]
        lines += explain.as_lines(finding, "  ")
    return _text([*lines, "", _where(result.run)])


def case_error(result: EvalCaseResult) -> str:
    case = result.report
    if case.errored_repeats < case.repeats:
        allowed = num(result.run.report.scoring.max_error_rate or 0.0)
        how = f" in {case.errored_repeats} of its {case.repeats} repeats, over the error budget"
        lines = [f"ERROR: eval case {_name(result)} crashed{how} (max_error_rate {allowed}):"]
    else:
        every = f" in every one of its {case.repeats} repeats" if case.repeats > 1 else ""
        lines = [f"ERROR: eval case {_name(result)} crashed{every}, so it was not scored:"]
    for finding in explain.errors(case):
        label = f"{explain.repeats_label(finding.repeats)}: " if case.repeats > 1 else ""
        lines += [f"  {label}{line}" for line in explain.as_lines(finding)]
    lines.append("An exception in the agent, a model or a tool is an error, not a wrong answer.")
    return _text([*lines, _where(result.run)])


def case_not_evaluated(result: EvalCaseResult) -> str:
    reasons = unevaluated.case_reasons(result.report, result.run.report.scoring)
    lines = [f"eval case {_name(result)} was not evaluated: no criterion could score it"]
    return _text([*lines, *(f"  {r}" for r in reasons), _where(result.run)])


def broken_budgets(run: EvalRunResult) -> list[str]:
    """The run-level budgets broken, and the error budget if it was, in words."""
    report = run.report
    broken = [
        f"{m.metric}: {', '.join(m.breached)}" for m in report.metrics if m.status == "failed"
    ]
    allowed = report.scoring.max_error_rate or 0.0
    if report.error_rate is not None and report.error_rate > allowed:
        broken.append(
            f"error rate {num(report.error_rate)} is over the allowed {num(allowed)} "
            f"({report.errored_repeats} of {report.total_repeats} case repeats errored)"
        )
    return broken


def run_failure(run: EvalRunResult, with_cases: bool) -> str:
    report = run.report
    lines = [f"eval run {run.run_id} failed the gate (exit code {report.exit_code})"]
    if with_cases:
        for verdict in ("failed", "error", "not_evaluated", "not_run"):
            ids = [c.case_id for c in report.cases if c.verdict == verdict]
            label = verdict.replace("_", " ")
            lines += [f"  {label} cases: {', '.join(ids)}"] if ids else []
    lines += [f"  {line}" for line in broken_budgets(run)]
    return _text([*lines, _where(run)])


def _name(result: EvalCaseResult) -> str:
    return f"'{result.case_id}' (eval set '{result.eval_set_id}')"


def _failed_metrics(result: EvalCaseResult) -> str:
    """The case-level scores (ADK's mean over turns) that failed, when there is one repeat."""
    case = result.report
    if case.repeats > 1 or not case.repeat_results:
        return ", ".join(case.failed_metrics)
    better = {c.metric: c.better for c in result.run.report.scoring.criteria}
    failed = [s for s in case.repeat_results[0].scores if s.status == "failed"]
    shown = [
        f"{s.metric} {num(s.score)}, needs {comparator(better.get(s.metric))} {num(s.threshold)}"
        for s in failed
    ]
    return ", ".join(shown) or ", ".join(case.failed_metrics)


def _repeats_line(result: EvalCaseResult) -> str:
    case = result.report
    policy = result.run.report.scoring.repeat_policy
    kind = str(policy.get("kind", "all"))
    rule = _POLICIES.get(kind, f"at least {policy.get('k')} repeats must pass")
    flaky = " (flaky)" if case.flaky else ""
    return (
        f"repeats: {case.passed_repeats} passed, {case.failed_repeats} failed, "
        f"{case.errored_repeats} errored of {case.repeats}{flaky}; {rule}"
    )


def _where(run: EvalRunResult) -> str:
    return f"spans and scores: {run.db_path} (run {run.run_id})"
