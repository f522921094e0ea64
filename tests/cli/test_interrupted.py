"""Ctrl-C during `tracegrade run`: the turn in flight is an error, the cases that never ran
are known as not run, and scoring the run later says it is incomplete and cannot pass."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from tests.support.cli import ROOT, TRACEGRADE, tracegrade
from tracegrade.exit_codes import ExitCode
from tracegrade.store import connect

AGENT = "tests.cli.stoppable_agent:root_agent"


def _case(case_id: str, *turns: tuple[str, str]) -> dict[str, object]:
    conversation = [
        {
            "user_content": {"parts": [{"text": asked}]},
            "final_response": {"parts": [{"text": said}]},
        }
        for asked, said in turns
    ]
    return {"eval_id": case_id, "conversation": conversation}


def _eval_set(folder: Path, *more: dict[str, object]) -> Path:
    path = folder / "stop.evalset.json"
    cases = [
        _case("a_quick", ("Quick one", "Done.")),
        _case("b_wait", ("Wait for it", "Waited."), ("Quick one", "Done.")),  # stopped in turn 0
        _case("c_quick", ("Another quick one", "Done again.")),  # never started (one at a time)
        *more,
    ]
    path.write_text(json.dumps({"eval_set_id": "stop", "eval_cases": cases}))
    return path


def _run_until_stopped(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    marker = tmp_path / "started"
    paths = [os.environ.get("PYTHONPATH"), str(ROOT)]  # a worktree's src, when given, first
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths))}
    env["STOPPABLE_MARKER"] = str(marker)
    command = [TRACEGRADE, "run", *(args or [str(_eval_set(tmp_path))])]
    command += ["--agent", AGENT, "--db", "cli.duckdb"]
    process = subprocess.Popen(
        command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 180
    while not marker.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the waiting case never started"
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)  # what Ctrl-C sends
    stdout, stderr = process.communicate(timeout=120)
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def test_ctrl_c_records_the_turn_in_flight_and_the_run_cannot_pass(tmp_path: Path) -> None:
    stopped = _run_until_stopped(tmp_path)

    assert stopped.returncode == ExitCode.INTERRUPTED, stopped.stderr
    last = stopped.stderr.strip().splitlines()[-1]
    assert last.startswith("tracegrade: interrupted: run ")
    run_id = last.split()[3]
    assert last.endswith(
        f"stopped after 1 of 3 case repeats; `tracegrade score --run {run_id}` "
        "scores what ran (as incomplete)"
    )
    connection = connect(tmp_path / "cli.duckdb", read_only=True)
    turns = connection.execute(
        "SELECT case_id, turn_index, is_error, error_type, tool_calls FROM turns "
        "WHERE run_id = ? ORDER BY case_id, turn_index",
        [run_id],
    ).fetchall()
    connection.close()
    assert turns == [
        ("a_quick", 0, False, None, 0),
        ("b_wait", 0, True, "interrupted", 1),
        ("b_wait", 1, True, "skipped", 0),
    ]

    scored = tracegrade("score", "--run", run_id, "--json", "r.json", cwd=tmp_path)

    assert scored.returncode == ExitCode.INCOMPLETE, scored.stdout + scored.stderr
    assert "Not run (1 of 3 case repeats): the run was stopped before them" in scored.stdout
    assert "\n  stop/c_quick\n" in scored.stdout
    assert scored.stdout.splitlines()[-1].startswith("INCOMPLETE: ")
    report = json.loads((tmp_path / "r.json").read_text())
    verdicts = {c["case_id"]: c["verdict"] for c in report["cases"]}
    assert verdicts == {"a_quick": "passed", "b_wait": "error", "c_quick": "not_run"}
    assert (report["verdict"], report["not_run_repeats"]) == ("incomplete", 1)


def test_a_scenario_case_never_run_is_not_run_and_counted(tmp_path: Path) -> None:
    # A conversation scenario expects no turns: it must still be a case of the run's plan.
    scenario: dict[str, object] = {
        "eval_id": "d_scenario",
        "conversation_scenario": {"starting_prompt": "Quick one", "conversation_plan": "Ask."},
    }
    eval_set = _eval_set(tmp_path, scenario)
    config = {
        "criteria": {"response_match_score": 0.5},
        "user_simulator_config": {"model": "stoppable-user"},
    }
    (tmp_path / "test_config.json").write_text(json.dumps(config))
    stopped = _run_until_stopped(tmp_path, str(eval_set), "--repeats", "2")
    assert stopped.returncode == ExitCode.INTERRUPTED, stopped.stderr
    run_id = stopped.stderr.strip().splitlines()[-1].split()[3]

    scored = tracegrade("score", "--run", run_id, "--json", "r.json", cwd=tmp_path)

    assert scored.returncode == ExitCode.INCOMPLETE, scored.stdout + scored.stderr
    assert "eval sets stop (4 cases) · repeats 2" in scored.stdout
    assert "\n4 cases " in scored.stdout
    assert "Not run (5 of 8 case repeats): the run was stopped before them" in scored.stdout
    assert "\n  stop/c_quick, stop/d_scenario\n" in scored.stdout
    report = json.loads((tmp_path / "r.json").read_text())
    verdicts = {c["case_id"]: c["verdict"] for c in report["cases"]}
    assert verdicts == {
        "a_quick": "passed",
        "b_wait": "error",
        "c_quick": "not_run",
        "d_scenario": "not_run",
    }
    assert report["not_run_repeats"] == 5
