"""`to_junit`: a run report as JUnit XML, the format every CI system reads.

One `<testsuite>` per eval set, one `<testcase classname="{eval_set}" name="{case_id}">` per
case. A failed case has a `<failure>` whose body says why (trajectories side by side), an
errored case an `<error>` (errors are not failures). A case no criterion evaluated is a
`<failure type="not_evaluated">` naming why (`<skipped>` when the scoring allowed it); a
case the run never reached an `<error type="not_run">`.
The run's identity is in each suite's `<properties>`; `time` is the sum of turn latencies.
Only elements and attributes of the common JUnit schema (Jenkins, GitLab, GitHub) are used.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable

from tracegrade.report import explain, unevaluated
from tracegrade.report.models import CaseReport, RunReport


def to_junit(report: RunReport) -> str:
    root = ET.Element("testsuites", name=f"tracegrade {report.run.run_id}")
    for eval_set in _eval_set_order(report):
        cases = [c for c in report.cases if c.eval_set_id == eval_set]
        root.append(_suite(report, eval_set, cases))
    _count(root, root.findall("testsuite"))
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"


def _eval_set_order(report: RunReport) -> list[str]:
    """The eval sets in the order of the report's cases (the run's order)."""
    return list(dict.fromkeys(c.eval_set_id for c in report.cases))


def _suite(report: RunReport, eval_set: str, cases: list[CaseReport]) -> ET.Element:
    suite = ET.Element("testsuite", name=eval_set)
    if report.run.started_at:
        suite.set("timestamp", report.run.started_at.removesuffix("Z"))  # the XSD has no zone
    properties = ET.SubElement(suite, "properties")
    for name, value in _properties(report, eval_set):
        ET.SubElement(properties, "property", name=name, value=value)
    suite.extend(_testcase(report, case) for case in cases)
    _count(suite, suite.findall("testcase"))
    return suite


def _properties(report: RunReport, eval_set: str) -> Iterable[tuple[str, str]]:
    run = report.run
    info = next((s for s in run.eval_sets if s.eval_set_id == eval_set), None)
    values = {
        "run_id": run.run_id,
        "scoring_id": report.scoring.scoring_id,
        "agent": run.agent,
        "models": ", ".join(run.models),
        "repeats": None if run.repeats is None else str(run.repeats),
        "git_commit": run.git_commit,
        "adk_version": run.adk_version,
        "tracegrade_version": run.tracegrade_version,
        "eval_set_path": info.path if info else None,
        "eval_set_sha256": info.sha256 if info else None,
        "verdict": report.verdict,
        "exit_code": str(report.exit_code),
    }
    return [(name, value) for name, value in values.items() if value]


def _testcase(report: RunReport, case: CaseReport) -> ET.Element:
    element = ET.Element("testcase", classname=case.eval_set_id, name=case.case_id)
    element.set("time", f"{_latency_ms(case) / 1000:.3f}")
    if case.verdict == "failed":
        failure = ET.SubElement(element, "failure", type="failed", message=_failure_message(case))
        failure.text = _body(explain.failures(case, report.scoring.criteria), "failed")
    elif case.verdict == "error":
        findings = explain.errors(case)
        first = findings[0].lines[0] if findings and findings[0].lines else "error"
        error = ET.SubElement(element, "error", type=_error_type(case), message=first)
        error.text = _body(findings, "errored")
    elif case.verdict == "not_evaluated":
        _not_evaluated(element, case, report)
    elif case.verdict == "not_run":
        message = "not run: the run was stopped before this case"
        ET.SubElement(element, "error", type="not_run", message=message)
    return element


def _not_evaluated(element: ET.Element, case: CaseReport, report: RunReport) -> None:
    """Not a pass (a failure of kind not_evaluated), unless the scoring allowed it."""
    reasons = unevaluated.case_reasons(case, report.scoring)
    message = "not evaluated: no criterion could score it"
    if report.scoring.allow_not_evaluated:
        ET.SubElement(element, "skipped", message=f"{message} ({'; '.join(reasons)})")
        return
    failure = ET.SubElement(element, "failure", type="not_evaluated", message=message)
    failure.text = "\n".join(reasons)


def _error_type(case: CaseReport) -> str:
    errors = (t.error for r in case.repeat_results for t in r.turns if t.error is not None)
    return next((e.type for e in errors if e.type), "error")


def _failure_message(case: CaseReport) -> str:
    judged = case.passed_repeats + case.failed_repeats
    flaky = " (flaky)" if case.flaky else ""
    failed = ", ".join(case.failed_metrics) or "a gating metric"
    return f"{failed} failed; {case.passed_repeats} of {judged} repeats passed{flaky}"


def _body(findings: list[explain.RepeatFinding], what: str) -> str:
    lines = []
    for finding in findings:
        lines.append(f"{explain.repeats_label(finding.repeats)} {what}")
        lines.extend(explain.as_lines(finding, "  "))
    return "\n".join(lines)


def _latency_ms(case: CaseReport) -> float:
    return sum(t.latency_ms or 0.0 for r in case.repeat_results for t in r.turns)


def _count(element: ET.Element, children: list[ET.Element]) -> None:
    """The counts and time JUnit readers expect: a suite counts its testcases' outcomes,
    the root sums its suites."""
    if element.tag == "testsuite":
        outcomes = [child[0].tag if len(child) else "" for child in children]
        counts = [len(children), *(outcomes.count(tag) for tag in _COUNTED)]
    else:
        counts = [sum(int(c.get(key, "0")) for c in children) for key in _COUNTS]
    for key, value in zip(_COUNTS, counts, strict=True):
        element.set(key, str(value))
    element.set("time", f"{sum(float(c.get('time', '0')) for c in children):.3f}")


_COUNTS = ("tests", "failures", "errors", "skipped")
_COUNTED = ("failure", "error", "skipped")
