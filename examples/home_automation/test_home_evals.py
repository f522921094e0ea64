"""The home-automation eval set as pytest tests: one test per eval case.

    pytest examples/home_automation

`bedside_lamp_off` fails on purpose (see README.md): its output shows the tool-call diff.
"""

from pathlib import Path

from tracegrade.pytest_plugin import EvalCaseResult, EvalRunResult, eval_cases

HERE = Path(__file__).parent

evals = eval_cases(HERE / "home.evalset.json", agent=HERE)


@evals.parametrize
def test_home_case(case_result: EvalCaseResult) -> None:
    case_result.assert_passed()


@evals.parametrize
def test_home_run_budgets(eval_run: EvalRunResult) -> None:
    eval_run.assert_run_budgets()  # the run-level p95 latency budget and the error budget
