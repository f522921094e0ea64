"""`run --otlp-endpoint --server` asks the server, before the first case, whether it can
resolve the run's judges; serve resolves those its `--judge-import` modules registered,
a `.py` file by its path, whatever name it was imported under."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.support.cli import one_line_error

from .helpers import TRACEGRADE, Server, start_server

ROOT = Path(__file__).parents[2]
HOME = ROOT / "examples" / "home_automation"
SELECTED = f"{HOME / 'home.evalset.json'}:device_status,bedtime_scenario"
JUDGED_AGENT = ROOT / "tests" / "cli" / "judged_agent.py"


def _tracegrade(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    paths = [os.environ.get("PYTHONPATH"), str(ROOT)]  # a worktree's src, when given, first
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths))}
    return subprocess.run(
        [TRACEGRADE, *args], capture_output=True, text=True, cwd=cwd, timeout=240, env=env
    )


def _run_over_otlp(server: Server, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return _tracegrade("run", *args, "--otlp-endpoint", server.url, "--server", server.url, cwd=cwd)


def _spans(server: Server, cwd: Path) -> int:
    counted = _tracegrade(
        "sql", "SELECT count(*) AS n FROM spans", "--db", str(server.db), "-f", "json", cwd=cwd
    )
    assert counted.returncode == 0, counted.stderr
    return int(json.loads(counted.stdout)[0]["n"])


def test_a_server_without_the_judge_refuses_the_run_before_its_first_case(tmp_path: Path) -> None:
    server = start_server(tmp_path, token="")
    try:
        refused = _run_over_otlp(server, tmp_path, SELECTED, "--agent", str(HOME))
        spans = _spans(server, tmp_path)
    finally:
        server.stop()

    assert refused.returncode == 2, refused.stdout + refused.stderr
    line = one_line_error(refused.stderr)  # no case ran: no progress line either
    assert f"--server {server.url}: it cannot score this run's judges" in line
    assert line.endswith(f"start it with `tracegrade serve ... --judge-import {HOME / 'judge.py'}`")
    assert spans == 0


def test_the_example_runs_over_otlp_with_serve_given_its_judge(tmp_path: Path) -> None:
    server = start_server(tmp_path, "--judge-import", str(HOME / "judge.py"), token="")
    try:
        ran = _run_over_otlp(server, tmp_path, SELECTED, "--agent", str(HOME))
    finally:
        server.stop()

    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "hallucinations_v1" in ran.stdout
    assert "Judges: 6 answers · 6 new calls" in ran.stdout
    assert "PASSED: 2/2 cases passed" in ran.stdout


def test_serve_finds_a_judge_the_agent_module_registered(tmp_path: Path) -> None:
    case = {
        "eval_id": "hello",
        "conversation": [
            {
                "user_content": {"parts": [{"text": "Hello"}]},
                "final_response": {"parts": [{"text": "Hello to you."}]},
            }
        ],
    }
    eval_set = tmp_path / "hello.evalset.json"
    eval_set.write_text(json.dumps({"eval_set_id": "hello", "eval_cases": [case]}))
    judged = {"judge_model_options": {"judge_model": "agent-judge", "num_samples": 1}}
    criteria = {"criteria": {"final_response_match_v2": {"threshold": 0.5, **judged}}}
    (tmp_path / "test_config.json").write_text(json.dumps(criteria))
    agent = ["--agent", "tests.cli.judged_agent:root_agent"]
    server = start_server(tmp_path, "--judge-import", str(JUDGED_AGENT), token="")
    try:
        ran = _run_over_otlp(server, tmp_path, str(eval_set), *agent)
    finally:
        server.stop()

    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "Judges: 1 answer · 1 new call" in ran.stdout
