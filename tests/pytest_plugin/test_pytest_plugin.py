"""The pytest plugin, run the way users get it: installed through its `pytest11` entry
point, in a separate pytest process (OTel allows one global tracer provider per process)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import duckdb
import pytest

# Here rather than in a conftest: pytest refuses `pytest_plugins` in non-root conftests.
pytest_plugins = ["pytester"]

pytestmark = pytest.mark.slow

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "home_automation"

AGENT = '''
from google.adk.agents import LlmAgent

from tracegrade.testing import ScriptedLlm


def lookup(city: str) -> dict:
    """Look up the weather in a city."""
    return {"city": city, "weather": "sunny"}


def pay(amount: float) -> dict:
    """Pay."""
    raise RuntimeError(f"payment service down ({amount})")


def paris():
    return [
        {"tool_calls": [{"name": "lookup", "args": {"city": "Paris"}}]},
        {"text": "Sunny in Paris."},
    ]


root_agent = LlmAgent(
    name="probe",
    model=ScriptedLlm.by_user_text(
        {
            "Hello": [{"text": "Hi there!"}],
            "Weather in Paris?": paris(),
            "Weather in Rome?": paris(),  # the wrong city
            "Pay now": [{"tool_calls": [{"name": "pay", "args": {"amount": 3.5}}]}],
        }
    ),
    tools=[lookup, pay],
)
'''

FLAKY_AGENT = '''
from google.adk.agents import LlmAgent

from tracegrade.testing import ScriptedLlm


def lookup(city: str) -> dict:
    """Look up the weather in a city."""
    return {"city": city}


def answer(city):
    return [{"tool_calls": [{"name": "lookup", "args": {"city": city}}]}, {"text": "Sunny."}]


# Answered in order across repeats: right, wrong, right.
root_agent = LlmAgent(
    name="flaky",
    model=ScriptedLlm.from_responses([*answer("Paris"), *answer("Rome"), *answer("Paris")]),
    tools=[lookup],
)
'''


def _turn(user: str, final: str | None, calls: list[dict[str, object]]) -> dict[str, object]:
    turn: dict[str, object] = {
        "user_content": {"role": "user", "parts": [{"text": user}]},
        "intermediate_data": {"tool_uses": calls},
    }
    if final is not None:
        turn["final_response"] = {"role": "model", "parts": [{"text": final}]}
    return turn


def lookup(city: str) -> dict[str, object]:
    return {"name": "lookup", "args": {"city": city}}


CASES = {
    "hello": _turn("Hello", "Hi there!", []),
    "paris": _turn("Weather in Paris?", "Sunny in Paris.", [lookup("Paris")]),
    "rome": _turn("Weather in Rome?", "Sunny in Rome.", [lookup("Rome")]),
    "pay": _turn("Pay now", None, [{"name": "pay", "args": {"amount": 3.5}}]),
}


TEST_FILE = """
from tracegrade.pytest_plugin import eval_cases

evals = eval_cases("probe.evalset.json{selection}", agent="probe_agent"{options})


@evals.parametrize
def test_case(case_result):
    case_result.assert_passed()
"""


@pytest.fixture
def project(pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with an agent, an eval set and its criteria, and tracegrade's plugin
    installed the way pip installs it: an entry point in the `pytest11` group."""
    site = tmp_path / "site"
    dist = site / "tracegrade_plugin_probe-0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: tracegrade-plugin-probe\nVersion: 0\n"
    )
    (dist / "entry_points.txt").write_text("[pytest11]\ntracegrade = tracegrade.pytest_plugin\n")
    paths = [str(site), os.environ.get("PYTHONPATH", "")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in paths if p))
    monkeypatch.setenv("HOME_AGENT_MODEL", "scripted")  # the example never calls Gemini here

    pytester.makeini("[pytest]\n")
    agent = pytester.mkpydir("probe_agent")
    (agent / "agent.py").write_text(AGENT)
    (agent / "__init__.py").write_text("from . import agent as agent\n")
    eval_set = {
        "eval_set_id": "probe",
        "eval_cases": [{"eval_id": k, "conversation": [v]} for k, v in CASES.items()],
    }
    (pytester.path / "probe.evalset.json").write_text(json.dumps(eval_set))
    (pytester.path / "test_config.json").write_text(
        json.dumps({"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.5}})
    )
    return pytester.path


def _test_file(pytester: pytest.Pytester, selection: str = "", options: str = "") -> None:
    pytester.makepyfile(test_probe_evals=TEST_FILE.format(selection=selection, options=options))


def test_one_test_per_case_failures_show_the_diff_and_crashes_are_errors(
    project: Path, pytester: pytest.Pytester
) -> None:
    _test_file(pytester)
    result = pytester.runpytest_subprocess("-v")
    result.assert_outcomes(passed=2, failed=1, errors=1)
    output = result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "*::test_case[[]hello[]] PASSED*",
            "*::test_case[[]paris[]] PASSED*",
            "*::test_case[[]rome[]] FAILED*",
            "*::test_case[[]pay[]] ERROR*",
        ]
    )
    # A wrong answer: a failure, with the turn, the failing metric and both call lists.
    result.stdout.fnmatch_lines(
        [
            "*EvalCaseFailed: eval case 'rome' (eval set 'probe') failed: "
            "tool_trajectory_avg_score 0.00, needs ≥ 1.00",
            '*turn 0 "Weather in Rome?"',
            "*tool_trajectory_avg_score 0.00, needs ≥ 1.00",
            '*lookup(city="Rome")*lookup(city="Paris")*',
            "*spans and scores: *spans.duckdb (run *)",
        ]
    )
    # A crash: an error at setup, with the exception, and no traceback of ours.
    result.stdout.fnmatch_lines(
        [
            "*ERROR at setup of test_case[[]pay[]]*",
            "ERROR: eval case 'pay' (eval set 'probe') crashed, so it was not scored:",
            "  turn 0: *payment service down (3.5)",
            "An exception in the agent, a model or a tool is an error, not a wrong answer.",
        ]
    )
    assert "Traceback" not in output
    result.stdout.fnmatch_lines(
        [
            "tracegrade: eval run *; spans and scores in a temporary database*",
            "FAILED test_probe_evals.py::test_case[[]rome[]] - *",
            "ERROR test_probe_evals.py::test_case[[]pay[]]*",
        ]
    )


def test_the_eval_set_is_replayed_once_per_session_and_can_be_kept(
    project: Path, pytester: pytest.Pytester
) -> None:
    pytester.makepyfile(
        test_two_tests="""
        from tracegrade.pytest_plugin import eval_cases

        evals = eval_cases("probe.evalset.json:hello,paris,rome", agent="probe_agent")

        @evals.parametrize
        def test_answer(case_result):
            assert case_result.report.repeat_results[0].turns[0].final_text

        @evals.parametrize
        def test_run(eval_run):
            assert sorted(c.case_id for c in eval_run.report.cases) == ["hello", "paris", "rome"]
        """
    )
    result = pytester.runpytest_subprocess(
        "--tracegrade-db", "kept.duckdb", "--tracegrade-repeats", "2"
    )
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["tracegrade: eval run *; spans and scores kept in kept.duckdb"])
    with duckdb.connect(str(project / "kept.duckdb"), read_only=True) as db:
        runs = db.execute("SELECT repeats, cases FROM eval_runs").fetchall()
        turns = db.execute("SELECT count(*) FROM turns WHERE run_id IS NOT NULL").fetchall()
        scorings = db.execute("SELECT count(*) FROM scorings").fetchall()
    assert runs == [(2, 3)]
    assert turns == [(3 * 2,)]
    assert scorings == [(1,)]


def test_only_the_selected_cases_are_replayed(project: Path, pytester: pytest.Pytester) -> None:
    _test_file(pytester)
    result = pytester.runpytest_subprocess("-k", "paris or hello", "--tracegrade-db", "k.duckdb")
    result.assert_outcomes(passed=2, deselected=2)
    with duckdb.connect(str(project / "k.duckdb"), read_only=True) as db:
        replayed = db.execute("SELECT DISTINCT case_id FROM turns ORDER BY 1").fetchall()
    assert replayed == [("hello",), ("paris",)]


def test_flaky_repeats_are_reported_under_the_repeat_policy(
    project: Path, pytester: pytest.Pytester
) -> None:
    flaky = pytester.mkpydir("flaky_agent")
    (flaky / "agent.py").write_text(FLAKY_AGENT)
    (flaky / "__init__.py").write_text("from . import agent as agent\n")
    pytester.makepyfile(
        test_flaky="""
        from tracegrade.pytest_plugin import eval_cases

        evals = eval_cases("probe.evalset.json:paris", agent="flaky_agent", repeats=3)

        @evals.parametrize
        def test_case(case_result):
            case = case_result.report
            assert (case.passed_repeats, case.failed_repeats) == (2, 1)
            assert case_result.flaky
            case_result.assert_passed()
        """
    )
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*eval case 'paris' (eval set 'probe') failed: tool_trajectory_avg_score",
            "*repeats: 2 passed, 1 failed, 0 errored of 3 (flaky); every repeat must pass",
            "*repeat 1 failed:",
            '*turn 0 "Weather in Paris?"',
            '*lookup(city="Paris")*lookup(city="Rome")*',
        ]
    )


def test_a_tracer_provider_already_installed_keeps_working(
    project: Path, pytester: pytest.Pytester
) -> None:
    pytester.makeconftest(
        """
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        mine = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(mine))
        trace.set_tracer_provider(provider)

        def pytest_sessionfinish(session):
            names = {span.name for span in mine.get_finished_spans()}
            assert "tracegrade.eval_turn" in names, names
            print("my exporter saw the eval turns")
        """
    )
    _test_file(pytester, ":paris")
    result = pytester.runpytest_subprocess("-s")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*my exporter saw the eval turns*"])


def test_a_bad_eval_set_is_reported_without_a_traceback(
    project: Path, pytester: pytest.Pytester
) -> None:
    pytester.makepyfile(
        test_missing="""
        from tracegrade.pytest_plugin import eval_cases

        evals = eval_cases("nowhere.evalset.json", agent="probe_agent")

        @evals.parametrize
        def test_case(case_result):
            case_result.assert_passed()
        """
    )
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*ERROR collecting test_missing.py*", "*nowhere.evalset.json*"])
    assert "Traceback" not in result.stdout.str()


def test_case_result_without_eval_cases_says_what_to_do(
    project: Path, pytester: pytest.Pytester
) -> None:
    pytester.makepyfile("def test_lonely(case_result):\n    pass\n")
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*decorate the test with @evals.parametrize*"])


def test_the_plugin_does_nothing_when_not_used(project: Path, pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import sys

        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider

        def test_plain():
            assert "tracegrade.pytest_plugin" in sys.modules  # loaded by its entry point
            for heavy in ("google.adk", "tracegrade.harness", "tracegrade.scoring"):
                assert heavy not in sys.modules, heavy
            assert not isinstance(trace.get_tracer_provider(), TracerProvider)
        """
    )
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=1)
    assert "tracegrade:" not in result.stdout.str()
    assert list(project.rglob("*.duckdb")) == []


def test_the_options_come_with_the_entry_point_and_go_with_it(
    project: Path, pytester: pytest.Pytester
) -> None:
    installed = pytester.runpytest_subprocess("--help")
    installed.stdout.fnmatch_lines(["tracegrade eval cases:", "*--tracegrade-db=PATH*"])
    disabled = pytester.runpytest_subprocess("-p", "no:tracegrade", "--help")
    assert "--tracegrade-db" not in disabled.stdout.str()


def test_the_examples_test_file_fails_only_the_intended_cases(
    project: Path, pytester: pytest.Pytester
) -> None:
    result = pytester.runpytest_subprocess(str(EXAMPLE / "test_home_evals.py"))
    result.assert_outcomes(passed=11, failed=2)  # 10 cases (one a scenario), the run budgets
    result.stdout.fnmatch_lines(
        [
            "FAILED *test_home_evals.py::test_home_case[[]device_3_by_number[]]*",
            "FAILED *test_home_evals.py::test_home_case[[]bedside_lamp_off[]]*",
        ]
    )


def test_judge_settings_given_to_eval_cases_reach_the_scoring(
    project: Path, pytester: pytest.Pytester
) -> None:
    """`eval_cases(judge=...)` is checked as `--judge-retries` is: a wrong value is one line."""
    _test_file(pytester, selection=":hello", options=', judge={"retries": -1}')
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(errors=1)  # at setup, as any input the cases cannot run with
    result.stdout.fnmatch_lines(
        ["*tracegrade could not run the eval cases: judge settings: retries: *"]
    )
    assert "Traceback" not in result.stdout.str()
    _test_file(pytester, selection=":hello", options=', judge={"retries": 0, "timeout_s": 5}')
    pytester.runpytest_subprocess().assert_outcomes(passed=1)
