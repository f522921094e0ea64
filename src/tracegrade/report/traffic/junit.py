"""`traffic_to_junit`: a traffic scoring as JUnit XML, so a scheduled CI job can gate on it.

One `<testsuite name="traffic">`: a `<testcase>` per gating metric (a `<failure>` naming
each budget broken), one for the error rate (a `<failure>` over `max_error_rate`), and a
`<skipped>` one per metric left out (not applicable to traffic, or not supported).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from tracegrade.exit_codes import ExitCode
from tracegrade.report.models import RunMetric
from tracegrade.report.traffic.build import TrafficReport
from tracegrade.report.traffic.text import describe
from tracegrade.report.values import pct


def traffic_to_junit(report: TrafficReport) -> str:
    root = ET.Element("testsuites", name=f"tracegrade traffic {report.scoring.scoring_id}")
    suite = ET.SubElement(root, "testsuite", name="traffic")
    properties = ET.SubElement(suite, "properties")
    for name, value in _properties(report).items():
        ET.SubElement(properties, "property", name=name, value=value)
    suite.extend(_metric_case(m) for m in report.metrics if m.gating)
    suite.append(_error_case(report))
    for metric, reason in sorted(report.scoring.not_evaluated.items()):
        case = ET.SubElement(suite, "testcase", classname="traffic", name=metric)
        ET.SubElement(case, "skipped", message=reason)
    for element in (suite, root):
        cases = list(suite.iter("testcase"))
        outcomes = [c[0].tag if len(c) else "" for c in cases]
        element.set("tests", str(len(cases)))
        for key, tag in (("failures", "failure"), ("errors", "error"), ("skipped", "skipped")):
            element.set(key, str(outcomes.count(tag)))
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"


def _properties(report: TrafficReport) -> dict[str, str]:
    return {
        "scoring_id": report.scoring.scoring_id,
        "selection": describe(report.selection),
        "turns": str(report.overall.turns),
        "verdict": report.verdict,
        "exit_code": str(report.exit_code),
    }


def _metric_case(metric: RunMetric) -> ET.Element:
    case = ET.Element("testcase", classname="traffic", name=metric.metric)
    if metric.status == "failed" or metric.failed_turns:
        message = "; ".join(metric.breached) or f"{metric.metric} over its budget"
        ET.SubElement(case, "failure", type="budget", message=message)
    return case


def _error_case(report: TrafficReport) -> ET.Element:
    case = ET.Element("testcase", classname="traffic", name="error_rate")
    if report.exit_code == ExitCode.ERRORS_OVER_LIMIT:
        overall = report.overall
        allowed = pct(report.scoring.max_error_rate)
        message = (
            f"{overall.errored_turns} of {overall.turns} turns errored "
            f"({pct(overall.error_rate)}, {allowed} allowed)"
        )
        ET.SubElement(case, "failure", type="errors", message=message)
    return case
