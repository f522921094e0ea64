"""The Python API (`tracegrade.eval`, `score`, `read_report`) against the CLI on one file.

The example runs offline (scripted model, judge and user) in its own processes: an eval
installs a tracer provider, which a process keeps.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb

from tests.support.cli import ROOT, tracegrade

EXAMPLE = ROOT / "examples" / "home_automation"
OFFLINE = {"HOME_AGENT_MODEL": "scripted", "HOME_JUDGE_MODEL": "scripted",
           "HOME_USER_MODEL": "scripted", "GOOGLE_API_KEY": ""}  # fmt: skip

API_SCRIPT = """
import json, sys
import tracegrade
from tracegrade import EvalRequest, ScoreRequest, Store

db, example = sys.argv[1], sys.argv[2]
store = Store(db)
evaluated = tracegrade.eval(EvalRequest(eval_sets=(example,), agent=example), store)
again = tracegrade.score(ScoreRequest(run_id=evaluated.run_id), store)
report = tracegrade.read_report(db, scoring_id=again.scoring_id)
print(json.dumps({
    "run_id": evaluated.run_id,
    "scoring_id": evaluated.scoring_id,
    "verdict": evaluated.verdict,
    "exit_code": int(evaluated.exit_code),
    "again": again.model_dump(mode="json"),
    "report_cases": {c.case_id: c.verdict for c in report.cases},
    "report_run": report.run.run_id,
}))
"""


def _python(script: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    paths = [os.environ.get("PYTHONPATH"), str(ROOT)]
    env = {**os.environ, **OFFLINE, "PYTHONPATH": os.pathsep.join(filter(None, paths))}
    return subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
    )


def _scores(db: Path, scoring_id: str) -> list[tuple[Any, ...]]:
    """A scoring's rows, but for the scores a clock decides (how long turns took)."""
    with duckdb.connect(str(db), read_only=True) as connection:
        return connection.execute(
            "SELECT level, case_id, repeat, turn_index, metric, status, passed, "
            "CASE WHEN metric IN ('latency', 'invocation_duration') THEN NULL "
            "ELSE round(score, 9) END "
            "FROM scores WHERE scoring_id = ? ORDER BY ALL",
            [scoring_id],
        ).fetchall()


def _cases(db: Path, scoring_id: str) -> dict[str, str]:
    with duckdb.connect(str(db), read_only=True) as connection:
        rows = connection.execute(
            "SELECT case_id, verdict FROM case_results WHERE scoring_id = ?", [scoring_id]
        ).fetchall()
    return dict(rows)


def _scoring_of(db: Path, run_id: str) -> str:
    with duckdb.connect(str(db), read_only=True) as connection:
        (row,) = connection.execute(
            "SELECT scoring_id FROM scorings WHERE run_id = ?", [run_id]
        ).fetchall()
    return str(row[0])


def test_an_eval_set_run_through_the_api_scores_as_the_cli_does(tmp_path: Path) -> None:
    db = tmp_path / "cli.duckdb"  # the file tests.support.cli's command writes
    cli = tracegrade(
        "run", str(EXAMPLE), "--agent", str(EXAMPLE), "--json", "cli.json",
        cwd=tmp_path, env=OFFLINE,
    )  # fmt: skip
    assert cli.returncode == 1, cli.stderr  # the example fails one case on purpose
    cli_run = json.loads((tmp_path / "cli.json").read_text())["run"]["run_id"]

    api = _python(API_SCRIPT, str(db), str(EXAMPLE), cwd=tmp_path)
    assert api.returncode == 0, api.stderr
    got = json.loads(api.stdout.strip().splitlines()[-1])

    assert got["run_id"] != cli_run
    assert (got["verdict"], got["exit_code"]) == ("failed", 1)  # as the CLI exits
    cli_scoring = _scoring_of(db, cli_run)
    assert _scores(db, got["scoring_id"]) == _scores(db, cli_scoring)
    assert _cases(db, got["scoring_id"]) == _cases(db, cli_scoring)
    assert "bedside_lamp_off" in _cases(db, cli_scoring)

    # Scoring the stored turns again gives the same verdicts under a new scoring.
    again = got["again"]
    assert again["run_id"] == got["run_id"]
    assert again["scoring_id"] != got["scoring_id"]
    assert (again["verdict"], again["exit_code"]) == ("failed", 1)
    assert _scores(db, again["scoring_id"]) == _scores(db, got["scoring_id"])

    # The report read back is that scoring's, case by case.
    assert got["report_run"] == got["run_id"]
    assert got["report_cases"] == _cases(db, again["scoring_id"])
