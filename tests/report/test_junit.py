"""JUnit XML as CI systems read it: one suite per eval set, failures apart from errors."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from tests.report.helpers import BASE_RUN
from tracegrade.report import RunReport, to_junit

# Elements and attributes of the common JUnit schema (Jenkins' junit-10.xsd, which GitLab
# and GitHub reporters follow); nothing else may appear.
SCHEMA = {
    "testsuites": {"name", "tests", "failures", "errors", "skipped", "time", "disabled"},
    "testsuite": {"name", "tests", "failures", "errors", "skipped", "time", "timestamp",
                  "hostname", "id", "package", "disabled", "log", "url", "file"},
    "properties": set(),
    "property": {"name", "value"},
    "testcase": {"name", "classname", "time", "assertions", "status", "file", "line"},
    "failure": {"message", "type"},
    "error": {"message", "type"},
    "skipped": {"message"},
    "system-out": set(),
    "system-err": set(),
}  # fmt: skip


@pytest.fixture(scope="module")
def report(base_report: RunReport) -> RunReport:
    return base_report


@pytest.fixture(scope="module")
def root(report: RunReport) -> ET.Element:
    return ET.fromstring(to_junit(report))


def _case(root: ET.Element, eval_set: str, case_id: str) -> ET.Element:
    found = root.find(f"testsuite/testcase[@classname='{eval_set}'][@name='{case_id}']")
    assert found is not None, (eval_set, case_id)
    return found


def test_only_schema_elements_and_attributes(root: ET.Element) -> None:
    assert root.tag == "testsuites"
    for element in root.iter():
        assert element.tag in SCHEMA, element.tag
        assert set(element.attrib) <= SCHEMA[element.tag], (element.tag, element.attrib)


def test_one_suite_per_eval_set_and_one_testcase_per_case(
    root: ET.Element, report: RunReport
) -> None:
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["shop", "extras"]
    for suite in suites:
        cases = suite.findall("testcase")
        expected = sorted(c.case_id for c in report.cases if c.eval_set_id == suite.get("name"))
        assert sorted(c.get("name", "") for c in cases) == expected
        assert {c.get("classname") for c in cases} == {suite.get("name")}


def test_failures_and_errors_are_distinct(root: ET.Element) -> None:
    failed = _case(root, "shop", "pear_only")
    assert [child.tag for child in failed] == ["failure"]
    assert "response_match_score 0.00, needs ≥ 0.80" in (failed[0].text or "")
    flaky = _case(root, "extras", "pear_price")
    assert "(flaky)" in flaky[0].get("message", "")
    errored = _case(root, "shop", "tool_crash")
    assert [child.tag for child in errored] == ["error"]
    assert errored[0].get("type") == "RuntimeError"
    assert "payment service down" in errored[0].get("message", "")
    assert len(_case(root, "shop", "transfer")) == 0  # passed: no child


def test_counts_add_up(root: ET.Element) -> None:
    for suite in root.findall("testsuite"):
        outcomes = [c[0].tag if len(c) else "passed" for c in suite.findall("testcase")]
        assert int(suite.get("tests", "")) == len(outcomes)
        for attribute, tag in (
            ("failures", "failure"),
            ("errors", "error"),
            ("skipped", "skipped"),
        ):
            assert int(suite.get(attribute, "")) == outcomes.count(tag)
    for attribute in ("tests", "failures", "errors", "skipped"):
        total = sum(int(s.get(attribute, "")) for s in root.findall("testsuite"))
        assert int(root.get(attribute, "")) == total
    assert (root.get("failures"), root.get("errors")) == ("2", "2")


def test_time_is_the_sum_of_turn_latencies(root: ET.Element, report: RunReport) -> None:
    case = next(c for c in report.cases if c.case_id == "two_turns_with_state")
    latency_s = sum(t.latency_ms or 0 for r in case.repeat_results for t in r.turns) / 1000
    assert float(_case(root, "shop", "two_turns_with_state").get("time", "")) == pytest.approx(
        latency_s, abs=1e-3
    )


def test_properties_name_the_run(root: ET.Element, report: RunReport) -> None:
    suite = root.find("testsuite[@name='shop']")
    assert suite is not None
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert properties["run_id"] == BASE_RUN
    assert properties["agent"] == report.run.agent
    assert properties["tracegrade_version"] == report.run.tracegrade_version
    assert properties["adk_version"] == report.run.adk_version
    assert properties["eval_set_path"] == "tests/data/evalsets/harness/shop.evalset.json"


def test_not_evaluated_cases_fail_unless_allowed(report: RunReport) -> None:
    reason = "needs an LLM judge or Vertex AI, which tracegrade does not run"
    case = report.cases[0].model_copy(update={"verdict": "not_evaluated"})
    scoring = report.scoring.model_copy(update={"not_evaluated": {"safety_v1": reason}})
    strict = report.model_copy(update={"cases": [case], "scoring": scoring})
    allowed = strict.model_copy(
        update={"scoring": scoring.model_copy(update={"allow_not_evaluated": True})}
    )

    (failed,) = ET.fromstring(to_junit(strict)).iter("testcase")
    (skipped,) = ET.fromstring(to_junit(allowed)).iter("testcase")

    assert [(c.tag, c.get("type")) for c in failed] == [("failure", "not_evaluated")]
    assert failed[0].text == f"safety_v1: {reason}"
    assert [c.tag for c in skipped] == ["skipped"]
    assert skipped[0].get("message") == (
        f"not evaluated: no criterion could score it (safety_v1: {reason})"
    )
