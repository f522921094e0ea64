"""What a test prints, from real runs scored in this process: every line compared."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import DATA
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.harness import RunOptions, run_eval
from tracegrade.pytest_plugin import EvalCaseFailed
from tracegrade.pytest_plugin.results import EvalCaseResult, EvalRunResult
from tracegrade.report import build_report
from tracegrade.scoring import Selection, available_metrics, parse_config, score
from tracegrade.store import LocalReader, SpanWriter

SHOP = DATA / "evalsets" / "harness" / "shop.evalset.json"
HOME = Path(__file__).resolve().parents[2] / "examples" / "home_automation"


def _run_home(captured: BlockingSpanProcessor, monkeypatch: pytest.MonkeyPatch) -> str:
    # The example's offline model, even where a Gemini key is set (tests/examples has more).
    monkeypatch.setenv("HOME_AGENT_MODEL", "scripted")
    monkeypatch.setenv("HOME_USER_MODEL", "scripted")
    # Its scenario case's simulated user, as test_config.json names it.
    simulator = {"user_simulator_config": {"model": "home-user"}}
    options = RunOptions(
        eval_sets=[str(HOME / "home.evalset.json")], agent=str(HOME), criteria=simulator
    )
    result = run_eval(options)
    assert captured.force_flush()
    return result.run_id


def _scored(writer: SpanWriter, run_id: str, config: dict[str, Any] | None) -> EvalRunResult:
    specs = available_metrics()
    scored = score(writer.connection, Selection(run_id=run_id), parse_config(config, specs), specs)
    report = build_report(LocalReader(writer.connection), scoring_id=scored.scoring_id)
    return EvalRunResult(report, "t.duckdb", {})


def _case(run: EvalRunResult, case_id: str) -> EvalCaseResult:
    found = run.case(run.report.cases[0].eval_set_id, case_id)
    assert found is not None
    return found


def _in_order(lines: list[str], fragments: list[str]) -> None:
    """Each fragment appears, on the line of the one before it or a later one."""
    at = 0
    for fragment in fragments:
        found = next((i for i in range(at, len(lines)) if fragment in lines[i]), None)
        assert found is not None, f"{fragment!r} not found after line {at}:\n" + "\n".join(lines)
        at = found


def _message(error: pytest.ExceptionInfo[EvalCaseFailed], run: EvalRunResult) -> list[str]:
    return str(error.value).replace(run.run_id, "RUN").splitlines()


@pytest.fixture
def home(
    captured: BlockingSpanProcessor, writer: SpanWriter, monkeypatch: pytest.MonkeyPatch
) -> EvalRunResult:
    config = {
        "criteria": {
            "tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "IN_ORDER"},
            "response_match_score": 0.8,
        }
    }
    return _scored(writer, _run_home(captured, monkeypatch), config)


@costly
def test_a_wrong_trajectory_shows_the_calls_and_the_failing_metrics(home: EvalRunResult) -> None:
    with pytest.raises(EvalCaseFailed) as failed:
        _case(home, "bedside_lamp_off").assert_passed()
    assert isinstance(failed.value, AssertionError)
    lines = _message(failed, home)
    assert lines[0] == (
        "eval case 'bedside_lamp_off' (eval set 'home') failed: "
        "tool_trajectory_avg_score 0.00, needs ≥ 1.00"
    )
    assert lines[-1] == "spans and scores: t.duckdb (run RUN)"
    # The findings are the report's (as in `tracegrade run`): the turn, the metric, both lists.
    _in_order(
        lines[1:-1],
        [
            "Turn off the bedside lamp.",
            "tool_trajectory_avg_score 0.00, needs ≥ 1.00",
            'list_devices(location="Bedroom")',
            'set_device_info(device_id="device_1", status="OFF")',
            'set_device_info(device_id="device_2", status="OFF")',
        ],
    )


@costly
def test_a_response_below_threshold_shows_both_texts(home: EvalRunResult) -> None:
    with pytest.raises(EvalCaseFailed) as failed:
        _case(home, "kitchen_devices").assert_passed()
    lines = _message(failed, home)
    assert lines[0] == (
        "eval case 'kitchen_devices' (eval set 'home') failed: "
        "response_match_score 0.79, needs ≥ 0.80"
    )
    _in_order(
        lines[1:],
        [
            "response_match_score 0.79, needs ≥ 0.80",
            "There is one device in the Kitchen: device_3, the extractor fan. It is off.",
            "The Kitchen has one device: device_3, the extractor fan, which is off.",
        ],
    )


def test_passing_cases_and_budgets_raise_nothing(home: EvalRunResult) -> None:
    _case(home, "bedroom_to_21").assert_passed()
    home.assert_run_budgets()
    with pytest.raises(EvalCaseFailed) as failed:
        home.assert_passed()  # the whole gate includes the failing cases
    # The scenario case has no expected turns, and both criteria here need them: nothing
    # applicable evaluated it, so it is named as not evaluated (the failures decide the exit).
    assert _message(failed, home) == [
        "eval run RUN failed the gate (exit code 1)",
        "  failed cases: bedside_lamp_off, kitchen_devices",
        "  not evaluated cases: bedtime_scenario",
        "spans and scores: t.duckdb (run RUN)",
    ]


def test_a_run_budget_fails_the_run_not_a_case(
    captured: BlockingSpanProcessor, writer: SpanWriter, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_id = _run_home(captured, monkeypatch)
    criteria = {"tool_trajectory_avg_score": 1.0, "token_usage": {"p95": 100}}
    run = _scored(writer, run_id, {"criteria": criteria})
    assert all("token_usage" not in c.failed_metrics for c in run.report.cases)
    with pytest.raises(EvalCaseFailed) as failed:
        run.assert_run_budgets()
    lines = _message(failed, run)
    assert lines[0] == "eval run RUN failed the gate (exit code 1)"
    assert lines[1].startswith("  token_usage: p95 ")
    assert "100" in lines[1]
    assert len(lines) == 3


def test_a_crash_reads_as_an_error_with_its_exception(
    captured: BlockingSpanProcessor, writer: SpanWriter
) -> None:
    options = RunOptions(
        eval_sets=[f"{SHOP}:tool_crash,pear_only"], agent="tests.harness.shop_agent.agent"
    )
    result = run_eval(options)
    assert captured.force_flush()
    run = _scored(writer, result.run_id, {"tracegrade": {"max_error_rate": 0.1}})
    crashed = _case(run, "tool_crash")
    assert crashed.verdict == "error"
    with pytest.raises(EvalCaseFailed) as failed:
        crashed.assert_passed()
    lines = _message(failed, run)
    assert lines[0] == (
        "ERROR: eval case 'tool_crash' (eval set 'shop') crashed, so it was not scored:"
    )
    assert lines[-2:] == [
        "An exception in the agent, a model or a tool is an error, not a wrong answer.",
        "spans and scores: t.duckdb (run RUN)",
    ]
    _in_order(lines[1:-2], ["turn 0", "payment service down (3.5)", "turn 1", "skipped"])
    with pytest.raises(EvalCaseFailed) as over:
        run.assert_run_budgets()
    assert _message(over, run)[1] == (
        "  error rate 0.50 is over the allowed 0.10 (1 of 2 case repeats errored)"
    )


CRASHES_ONCE = '''
from google.adk.agents import LlmAgent

from tracegrade.testing import ScriptedLlm


def lookup(city: str) -> dict:
    """Look a city up."""
    return {"city": city}


ANSWER = [{"tool_calls": [{"name": "lookup", "args": {"city": "Paris"}}]}, {"text": "Sunny."}]

# Answered in order across repeats: right, the model crashes, right.
root_agent = LlmAgent(
    name="crashes_once",
    model=ScriptedLlm.from_responses([*ANSWER, {"raise": "model backend unavailable"}, *ANSWER]),
    tools=[lookup],
)
'''


@pytest.mark.parametrize(("max_error_rate", "fails"), [(0.0, True), (0.5, False)])
def test_a_case_that_crashed_in_some_repeats_fails_over_the_error_budget(
    captured: BlockingSpanProcessor,
    writer: SpanWriter,
    tmp_path: Path,
    max_error_rate: float,
    fails: bool,
) -> None:
    agent = tmp_path / f"crashes_once_{int(max_error_rate * 10)}"
    agent.mkdir()
    (agent / "agent.py").write_text(CRASHES_ONCE)
    evalset = tmp_path / "paris.evalset.json"
    evalset.write_text(
        '{"eval_set_id": "p", "eval_cases": [{"eval_id": "paris", "conversation": [{'
        '"user_content": {"parts": [{"text": "Weather in Paris?"}]},'
        '"intermediate_data": {"tool_uses": [{"name": "lookup", "args": {"city": "Paris"}}]}}]}]}'
    )
    result = run_eval(RunOptions(eval_sets=[str(evalset)], agent=str(agent), repeats=3))
    assert captured.force_flush()
    config = {
        "criteria": {"tool_trajectory_avg_score": 1.0},
        "tracegrade": {"max_error_rate": max_error_rate},
    }
    run = _scored(writer, result.run_id, config)
    case = _case(run, "paris")
    assert (case.verdict, case.report.passed_repeats, case.report.errored_repeats) == (
        "passed",
        2,
        1,
    )
    if not fails:
        case.assert_passed()
        return
    with pytest.raises(EvalCaseFailed) as failed:
        case.assert_passed()
    lines = _message(failed, run)
    assert lines[0] == (
        "ERROR: eval case 'paris' (eval set 'p') crashed in 1 of its 3 repeats, "
        "over the error budget (max_error_rate 0.00):"
    )
    _in_order(lines[1:], ["repeat 1", "turn 0", "model backend unavailable"])
