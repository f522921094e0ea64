"""The command line as a gate: exit codes, one-line errors, stdout for data."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import DATA
from tracegrade.exit_codes import ExitCode
from tracegrade.store import connect

ROOT = Path(__file__).parents[2]
TRACEGRADE = str(Path(sys.executable).with_name("tracegrade"))
FLAKY = DATA / "evalsets" / "harness" / "flaky.evalset.json"
SHOP = DATA / "evalsets" / "harness" / "shop.evalset.json"


def tracegrade(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    paths = [os.environ.get("PYTHONPATH"), str(ROOT)]  # a worktree's src, when given, first
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, paths)),
        "TRACEGRADE_DB": str(cwd / "cli.duckdb"),
    }
    return subprocess.run(
        [TRACEGRADE, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=240
    )


def _config(tmp_path: Path, document: dict[str, object]) -> str:
    path = tmp_path / "criteria.json"
    path.write_text(json.dumps(document))
    return str(path)


def test_passing_run_exits_0_with_the_summary_on_stdout(tmp_path: Path) -> None:
    done = tracegrade(
        "run", str(FLAKY), "--agent", "tests.scoring.flaky_agent:root_agent", cwd=tmp_path
    )
    assert done.returncode == ExitCode.OK, done.stderr
    assert "find_paris" in done.stdout
    assert "[1/1] find_paris (repeat 0) ran" in done.stderr  # progress on stderr, not stdout
    assert "find_paris (repeat" not in done.stdout


def test_quality_failure_exits_1_and_writes_reports(tmp_path: Path) -> None:
    config = _config(
        tmp_path,
        {"criteria": {"tool_trajectory_avg_score": 1.0}, "tracegrade": {"max_error_rate": 0.5}},
    )
    done = tracegrade(
        "run",
        str(SHOP),
        "--agent",
        "tests.harness.shop_agent.agent:root_agent",
        "--config",
        config,
        "--json",
        "r.json",
        "--junit",
        "r.xml",
        cwd=tmp_path,
    )
    assert done.returncode == ExitCode.GATE_FAILED, done.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert {c["case_id"]: c["verdict"] for c in report["cases"]}["pear_only"] == "failed"
    assert "<failure" in (tmp_path / "r.xml").read_text()
    # Arguments as the eval set wrote them: `true`, not the 1 they compare as.
    assert "show_cart: verbose missing (expected true)" in done.stdout
    assert "1 show_cart(verbose=true)  ≠ show_cart({})" in done.stdout


def test_crashes_over_the_error_budget_exit_3(tmp_path: Path) -> None:
    done = tracegrade(
        "run", str(SHOP), "--agent", "tests.harness.shop_agent.agent:root_agent", cwd=tmp_path
    )
    assert done.returncode == ExitCode.ERRORS_OVER_LIMIT, done.stderr
    assert "errors are not failures" in done.stdout
    tolerant = {"criteria": {"tool_trajectory_avg_score": 1.0}, "tracegrade": {"max_error_rate": 1}}
    rescore = tracegrade("score", "--config", _config(tmp_path, tolerant), cwd=tmp_path)
    assert rescore.returncode == ExitCode.GATE_FAILED, rescore.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "missing.evalset.json", "--agent", "x:y"], "missing.evalset.json"),
        (
            ["run", str(SHOP), "--agent", "no_such_module:root_agent"],
            "no module named 'no_such_module'",
        ),
        (["score"], "no eval run is stored"),
        (["sql", "DELETE FROM spans"], "only SELECT queries are allowed"),
        (["sql", "SELECT 1; SELECT 2"], "exactly one statement"),
        (["report"], ""),
        (["ingest", "nope.jsonl"], "cannot read"),
    ],
)
def test_user_errors_exit_2_with_one_line_and_no_traceback(
    tmp_path: Path, args: list[str], message: str
) -> None:
    if args[0] in ("score", "report"):
        connect(tmp_path / "cli.duckdb").close()  # a database, with no run in it
    done = tracegrade(*args, cwd=tmp_path)
    assert done.returncode == ExitCode.USAGE_ERROR, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("tracegrade: ")
    assert message in done.stderr
    assert done.stdout == ""


def test_unknown_metric_in_criteria_is_a_usage_error(tmp_path: Path) -> None:
    config = _config(tmp_path, {"criteria": {"tool_trajectory": 1.0}})
    done = tracegrade(
        "run",
        str(FLAKY),
        "--agent",
        "tests.scoring.flaky_agent:root_agent",
        "--config",
        config,
        cwd=tmp_path,
    )
    assert done.returncode == ExitCode.USAGE_ERROR
    assert "unknown metric 'tool_trajectory'" in done.stderr


def test_sql_formats(tmp_path: Path) -> None:
    tracegrade("ingest", str(DATA / "traces" / "adk_v2_b.otlp.jsonl"), cwd=tmp_path)
    query = "SELECT turn_index, tool_calls FROM turns ORDER BY start_ns"
    as_json = tracegrade(
        "sql", "SELECT tool_calls FROM turns ORDER BY start_ns", "-f", "json", cwd=tmp_path
    )
    as_csv = tracegrade("sql", query, "-f", "csv", cwd=tmp_path)
    assert json.loads(as_json.stdout) == [
        {"tool_calls": 3},
        {"tool_calls": 1},
    ]
    assert as_csv.stdout.splitlines()[0] == "turn_index,tool_calls"
