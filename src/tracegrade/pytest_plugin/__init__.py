"""tracegrade's pytest plugin: one test per eval case, failing with the trajectory diff.

    # test_agent_evals.py
    from tracegrade.pytest_plugin import eval_cases

    evals = eval_cases("examples/home_automation/home.evalset.json",
                       agent="examples/home_automation")

    @evals.parametrize
    def test_case(case_result):          # one test per eval case
        case_result.assert_passed()

The eval sets are replayed once per pytest session (only the cases pytest selected), on
the first test that needs them; spans go to a temporary DuckDB file, or to
`--tracegrade-db PATH` to keep them. A case whose agent, model or tool crashed is a test
*error* (at setup, `ERROR: ...`), never a failure. A test asking for `eval_run` instead of
`case_result` gets the whole run, for the run-level gates (p50/p95 budgets, error rate).

pytest loads this module in every session (entry point `pytest11`), so it imports no
google-adk, harness, scoring or report code until a test asks for eval cases, and opens
no database.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tracegrade.pytest_plugin.spec import MARKER, CaseParam, EvalCases, eval_cases

if TYPE_CHECKING:
    from tracegrade.pytest_plugin.results import EvalCaseFailed, EvalCaseResult, EvalRunResult
    from tracegrade.pytest_plugin.session import EvalSession

__all__ = [
    "CaseParam",
    "EvalCaseFailed",
    "EvalCaseResult",
    "EvalCases",
    "EvalRunResult",
    "eval_cases",
]

Selected = dict[EvalCases, frozenset[CaseParam] | None]

_SESSION = pytest.StashKey["EvalSession"]()
_KNOWN = pytest.StashKey[dict[EvalCases, frozenset[CaseParam]]]()
_SELECTED = pytest.StashKey[Selected]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tracegrade", "tracegrade eval cases")
    group.addoption(
        "--tracegrade-db",
        metavar="PATH",
        help="keep the eval runs' spans and scores in this DuckDB file "
        "(default: a temporary file, removed at exit)",
    )
    group.addoption(
        "--tracegrade-repeats",
        type=int,
        metavar="N",
        help="replay every eval case N times (overrides eval_cases(repeats=...))",
    )
    group.addoption(
        "--tracegrade-parallel",
        type=int,
        metavar="N",
        help="replay up to N cases at once (overrides eval_cases(parallel=...))",
    )


def pytest_configure(config: pytest.Config) -> None:
    for option in ("tracegrade_repeats", "tracegrade_parallel"):
        value = config.getoption(option)
        if value is not None and value < 1:
            flag = "--" + option.replace("_", "-")
            raise pytest.UsageError(f"{flag} must be 1 or more, not {value}")
    config.addinivalue_line(
        "markers", f"{MARKER}(evals): the eval cases a test checks (set by evals.parametrize)"
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    marker = metafunc.definition.get_closest_marker(MARKER)
    if marker is None or "case_result" not in metafunc.fixturenames:
        return
    spec = _spec(marker, metafunc.config)
    params = _case_params(spec)
    metafunc.config.stash.setdefault(_KNOWN, {})[spec] = frozenset(params)
    several = len({p.eval_set_id for p in params}) > 1
    ids = [f"{p.eval_set_id}/{p.case_id}" if several else p.case_id for p in params]
    metafunc.parametrize("case_result", params, indirect=True, ids=ids)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Note which cases survived -k, --lf and the like, so only they are replayed."""
    chosen: dict[EvalCases, set[CaseParam] | None] = {}
    for item in session.items:
        callspec = getattr(item, "callspec", None)
        param = callspec.params.get("case_result") if callspec else None
        marker = item.get_closest_marker(MARKER)
        if isinstance(param, CaseParam):
            cases = chosen.setdefault(param.spec, set())
            if cases is not None:
                cases.add(param)
        elif marker is not None and "eval_run" in getattr(item, "fixturenames", ()):
            chosen[_spec(marker, session.config)] = None  # the whole run
    known = session.config.stash.get(_KNOWN, {})
    session.config.stash[_SELECTED] = {
        spec: None if cases is None or frozenset(cases) == known.get(spec) else frozenset(cases)
        for spec, cases in chosen.items()
    }


@pytest.fixture
def case_result(request: pytest.FixtureRequest) -> EvalCaseResult:
    """One eval case of the session's run; `assert_passed()` fails with the diff."""
    from tracegrade.pytest_plugin import messages

    param = getattr(request, "param", None)
    if not isinstance(param, CaseParam):
        pytest.fail(
            "case_result comes from tracegrade's eval cases: decorate the test with "
            "@evals.parametrize, where evals = eval_cases(...)",
            pytrace=False,
        )
    run = _run(request.config, param.spec)
    key = (param.eval_set_id, param.case_id)
    if key in run.not_replayable:
        pytest.skip(f"eval case '{param.case_id}' cannot be replayed: {run.not_replayable[key]}")
    result = run.case(*key)
    if result is None:
        pytest.fail(f"ERROR: eval case '{param.case_id}' produced no turns", pytrace=False)
    if result.verdict == "error":  # an error at setup: pytest counts it apart from failures
        pytest.fail(messages.case_error(result), pytrace=False)
    return result


@pytest.fixture
def eval_run(request: pytest.FixtureRequest) -> EvalRunResult:
    """The whole run of the test's eval cases; `assert_passed()` applies the full gate."""
    marker = request.node.get_closest_marker(MARKER)
    if marker is None:
        pytest.fail(
            "eval_run comes from tracegrade's eval cases: decorate the test with "
            "@evals.parametrize, where evals = eval_cases(...)",
            pytrace=False,
        )
    return _run(request.config, _spec(marker, request.config))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    session = terminalreporter.config.stash.get(_SESSION, None)
    if session is None or not session.run_ids:
        return
    where = (
        f"kept in {session.db_path}"
        if session.kept
        else "in a temporary database (keep them with --tracegrade-db PATH)"
    )
    terminalreporter.write_line(
        f"tracegrade: eval run {', '.join(session.run_ids)}; spans and scores {where}"
    )


def pytest_unconfigure(config: pytest.Config) -> None:
    session = config.stash.get(_SESSION, None)
    if session is not None:
        session.close()


def __getattr__(name: str) -> object:
    # The report types, for annotating tests, without importing them with the plugin.
    if name in ("EvalCaseResult", "EvalRunResult", "EvalCaseFailed"):
        from tracegrade.pytest_plugin import results

        return getattr(results, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _spec(marker: pytest.Mark, config: pytest.Config) -> EvalCases:
    spec = marker.args[0] if marker.args else None
    if not isinstance(spec, EvalCases):
        raise pytest.UsageError(f"@{MARKER} takes the EvalCases that eval_cases() returns")
    return spec.resolved(config.rootpath)


def _case_params(spec: EvalCases) -> list[CaseParam]:
    from tracegrade.errors import TracegradeError
    from tracegrade.evalset import load_eval_sets

    try:
        loaded = load_eval_sets(list(spec.eval_sets))
    except TracegradeError as exc:
        problem = str(exc)
    else:
        return [
            CaseParam(spec, str(s.path), s.eval_set_id, case.case_id)
            for s in loaded
            for case in s.cases
        ]
    # Failing outside the except block keeps the TracegradeError out of the report.
    pytest.fail(problem, pytrace=False)


def _run(config: pytest.Config, spec: EvalCases) -> EvalRunResult:
    from tracegrade.errors import TracegradeError

    try:
        return _session(config).run(spec)
    except TracegradeError as exc:
        problem = str(exc)
    pytest.fail(f"tracegrade could not run the eval cases: {problem}", pytrace=False)


def _session(config: pytest.Config) -> EvalSession:
    from tracegrade.pytest_plugin.session import EvalSession

    if _SESSION not in config.stash:
        db = config.getoption("tracegrade_db")
        config.stash[_SESSION] = EvalSession(
            Path(db) if db else None,
            repeats=config.getoption("tracegrade_repeats"),
            parallel=config.getoption("tracegrade_parallel"),
            selected=config.stash.get(_SELECTED, {}),
        )
    return config.stash[_SESSION]
