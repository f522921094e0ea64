"""`tracegrade run` checks what it can before it imports the agent (seconds): the criteria
and the baseline (the agent here is a module that does not exist: the error named is the
first mistake's); and the judges before any case runs (model and judge calls paid)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.report.helpers import BASE_RUN, score_run
from tests.support.archive import eval_runs_db
from tests.support.cli import invoke, one_line_error, tracegrade
from tests.support.paths import DATA
from tracegrade.exit_codes import ExitCode
from tracegrade.store import connect

FLAKY = DATA / "evalsets" / "harness" / "flaky.evalset.json"
NO_AGENT = "no_such_agent_module:root_agent"
FLAKY_AGENT = "tests.scoring.flaky_agent:root_agent"
JUDGED = {"threshold": 0.5, "judge_model_options": {"judge_model": "no-such-judge-model"}}


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (
            {"criteria": {"tool_trajectory_avg_scor": 1.0}},
            "criteria: unknown metric 'tool_trajectory_avg_scor' "
            "(did you mean tool_trajectory_avg_score?)",
        ),
        (
            {"criteria": {}, "tracegrade": {"max_eror_rate": 0.5}},
            "tracegrade: unknown setting max_eror_rate (did you mean max_error_rate?)",
        ),
        (
            {"criteria": {}, "user_simulator_confg": {"model": "x"}},
            "unknown key 'user_simulator_confg' (did you mean user_simulator_config?)",
        ),
    ],
    ids=["metric", "setting", "top-level key"],
)
def test_a_criteria_mistake_is_found_before_the_agent_is_imported(
    tmp_path: Path, document: dict[str, object], message: str
) -> None:
    config = tmp_path / "test_config.json"
    config.write_text(json.dumps(document))
    db = tmp_path / "t.duckdb"

    done = invoke("run", str(FLAKY), "--agent", NO_AGENT, "--config", str(config), "--db", str(db))

    assert done.exit_code == ExitCode.USAGE_ERROR, done.output
    line = one_line_error(done.stderr)
    assert line == f"tracegrade: {config}: {message}"
    assert not db.exists()


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (
            {"criteria": {}, "tracegrade": {"judge_imports": ["judgez.py"]}},
            "tracegrade: tracegrade.judge_imports: cannot import '{folder}/judgez.py': "
            "no file {folder}/judgez.py",
        ),
        (
            {"criteria": {"final_response_match_v2": JUDGED}},
            "tracegrade: judge model 'no-such-judge-model': Model no-such-judge-model not found.",
        ),
    ],
    ids=["judge import", "judge model"],
)
def test_a_judge_that_cannot_be_found_stops_the_run_before_its_first_case(
    tmp_path: Path, document: dict[str, object], message: str
) -> None:
    """After the agent is loaded (a judge may live in its package), before any case."""
    config = tmp_path / "test_config.json"
    config.write_text(json.dumps(document))

    done = tracegrade("run", str(FLAKY), "--agent", FLAKY_AGENT, "--config", str(config),
                      cwd=tmp_path)  # fmt: skip

    assert done.returncode == ExitCode.USAGE_ERROR, done.stderr
    assert one_line_error(done.stderr).startswith(message.format(folder=tmp_path))
    assert not (tmp_path / "cli.duckdb").exists()  # no case ran, nothing was recorded


def test_a_mistyped_baseline_is_refused_before_any_case_runs(tmp_path: Path) -> None:
    db = tmp_path / "t.duckdb"
    connect(db).close()  # a database with no run: nothing can match

    done = invoke(
        "run", str(FLAKY), "--agent", NO_AGENT, "--baseline", "2026-base", "--db", str(db)
    )

    assert done.exit_code == ExitCode.USAGE_ERROR, done.output
    assert one_line_error(done.stderr) == (
        "tracegrade: --baseline '2026-base': no eval run or tag of that name; "
        "no eval run is stored yet"
    )


def test_report_names_the_near_run_before_printing_any_summary(tmp_path: Path) -> None:
    db = eval_runs_db(tmp_path / "runs.duckdb")
    connection = connect(db)
    score_run(connection, BASE_RUN)
    connection.close()

    done = invoke("report", BASE_RUN, "--baseline", BASE_RUN[:-1], "--db", str(db))

    assert done.exit_code == ExitCode.USAGE_ERROR, done.output
    assert done.stdout == ""
    assert one_line_error(done.stderr) == (
        f"tracegrade: --baseline '{BASE_RUN[:-1]}': no eval run or tag of that name; "
        f"did you mean {BASE_RUN}?"
    )
