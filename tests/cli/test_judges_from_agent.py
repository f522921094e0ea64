"""A judge registered in the agent's module is found wherever the run is scored: the run
records the module among its `judge_imports`, so `score --run` imports it again."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.support.cli import ROOT, one_line_error, tracegrade
from tracegrade.exit_codes import ExitCode
from tracegrade.store import connect

AGENT = "tests.cli.judged_agent:root_agent"
AGENT_FILE = ROOT / "tests" / "cli" / "judged_agent.py"
CRITERIA = {
    "criteria": {
        "final_response_match_v2": {
            "threshold": 0.5,
            "judge_model_options": {"judge_model": "agent-judge", "num_samples": 1},
        }
    }
}


def _files(folder: Path) -> Path:
    case = {
        "eval_id": "hello",
        "conversation": [
            {
                "user_content": {"parts": [{"text": "Hello"}]},
                "final_response": {"parts": [{"text": "Hello to you."}]},
            }
        ],
    }
    path = folder / "hello.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "hello", "eval_cases": [case]}))
    (folder / "test_config.json").write_text(json.dumps(CRITERIA))
    return path


def _recorded_imports(db: Path) -> list[str]:
    connection = connect(db, read_only=True)
    ((criteria,),) = connection.execute("SELECT criteria FROM eval_runs").fetchall()
    connection.close()
    document = criteria if isinstance(criteria, dict) else json.loads(criteria)
    return list(document["tracegrade"]["judge_imports"])


def test_score_run_finds_a_judge_the_agent_module_registered(tmp_path: Path) -> None:
    ran = tracegrade("run", str(_files(tmp_path)), "--agent", AGENT, cwd=tmp_path)
    assert ran.returncode == ExitCode.OK, ran.stdout + ran.stderr
    assert _recorded_imports(tmp_path / "cli.duckdb") == [str(AGENT_FILE)]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    # Without the repository on the path: only the recorded file can bring the judge back.
    alone = {"PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    db = str(tmp_path / "cli.duckdb")
    scored = tracegrade(
        "score",
        "--db",
        db,
        "--config",
        str(tmp_path / "test_config.json"),
        cwd=elsewhere,
        env=alone,
    )
    assert scored.returncode == ExitCode.USAGE_ERROR, scored.stdout + scored.stderr
    assert "judge model 'agent-judge'" in one_line_error(scored.stderr)
    assert "--judge-import" in scored.stderr
    given = ["--config", str(tmp_path / "test_config.json"), "--judge-import", str(AGENT_FILE)]
    imported = tracegrade("score", "--db", db, *given, cwd=elsewhere, env=alone)
    assert imported.returncode == ExitCode.OK, imported.stdout + imported.stderr
    rescored = tracegrade("score", "--db", db, cwd=elsewhere, env=alone)

    assert rescored.returncode == ExitCode.OK, rescored.stdout + rescored.stderr
    assert "Judges: 1 answer · 0 new calls, 1 from the cache" in rescored.stdout


def test_a_judge_outside_the_agent_records_no_agent_import(tmp_path: Path) -> None:
    eval_set = _files(tmp_path)
    (tmp_path / "test_config.json").write_text(
        json.dumps({"criteria": {"response_match_score": 0.5}})
    )
    ran = tracegrade("run", str(eval_set), "--agent", AGENT, cwd=tmp_path)
    assert ran.returncode == ExitCode.OK, ran.stdout + ran.stderr
    connection = connect(tmp_path / "cli.duckdb", read_only=True)
    ((criteria,),) = connection.execute("SELECT criteria FROM eval_runs").fetchall()
    connection.close()
    assert "judge_imports" not in str(criteria)
