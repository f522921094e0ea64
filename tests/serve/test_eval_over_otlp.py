"""An eval run exported over OTLP to a real `tracegrade serve` scores as an in-process run
does; and while serve holds the database, `sql`, `score` and `report` work through it."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import duckdb

from .helpers import TRACEGRADE, Server, start_server

ROOT = Path(__file__).parents[2]
SHOP = ROOT / "tests" / "data" / "evalsets" / "harness" / "shop.evalset.json"
AGENT = "tests.harness.shop_agent.agent:root_agent"
CONFIG = {"criteria": {"tool_trajectory_avg_score": 1.0}, "tracegrade": {"max_error_rate": 0.5}}


def _tracegrade(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    paths = [os.environ.get("PYTHONPATH"), str(ROOT)]  # a worktree's src, when given, first
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths))}
    return subprocess.run(
        [TRACEGRADE, *args], capture_output=True, text=True, cwd=cwd, timeout=240, env=env
    )


def _case_scores(db: Path) -> dict[tuple[str, int, int | None, str], Any]:
    """Every turn and case score of the latest scoring, by case, repeat, turn and metric."""
    connection = duckdb.connect(str(db), read_only=True)
    rows = connection.execute(
        """
        SELECT case_id, repeat, turn_index, metric, score, status
        FROM scores
        WHERE scoring_id = (SELECT scoring_id FROM scorings ORDER BY scored_at DESC LIMIT 1)
          AND level IN ('turn', 'case') AND metric NOT IN ('latency', 'invocation_duration')
        """
    ).fetchall()
    connection.close()
    return {(r[0], r[1], r[2], r[3]): (r[4], r[5]) for r in rows}


def test_a_run_over_otlp_scores_like_an_in_process_run(tmp_path: Path) -> None:
    config = tmp_path / "criteria.json"
    config.write_text(json.dumps(CONFIG))
    local = _tracegrade(
        "run",
        str(SHOP),
        "--agent",
        AGENT,
        "--config",
        str(config),
        "--db",
        str(tmp_path / "local.duckdb"),
        cwd=ROOT,
    )
    (tmp_path / "served").mkdir()
    server: Server = start_server(tmp_path / "served", token="")
    try:
        remote = _tracegrade(
            "run",
            str(SHOP),
            "--agent",
            AGENT,
            "--config",
            str(config),
            "--otlp-endpoint",
            server.url,
            "--server",
            server.url,
            cwd=ROOT,
        )
        served_sql = _tracegrade(
            "sql",
            "SELECT count(DISTINCT case_id) AS cases FROM turns",
            "--db",
            str(server.db),
            "-f",
            "json",
            cwd=tmp_path,
        )
        rescored = _tracegrade("score", "--db", str(server.db), cwd=tmp_path)
        report = _tracegrade("report", "--db", str(server.db), cwd=tmp_path)
    finally:
        server.stop()

    assert local.returncode == remote.returncode == 1, (local.stderr, remote.stderr)
    assert served_sql.returncode == 0, served_sql.stderr
    assert json.loads(served_sql.stdout) == [{"cases": 5}]
    assert rescored.returncode == 1, rescored.stderr
    assert report.returncode == 1, report.stderr
    assert "shop/pear_only" in report.stdout
    ours, theirs = _case_scores(tmp_path / "local.duckdb"), _case_scores(server.db)
    assert len(ours) > 20
    assert ours == theirs


def test_score_says_how_to_reach_a_server_it_cannot_find(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [
            str(Path(TRACEGRADE).with_name("python")),
            "-c",
            "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
            "print('ok', flush=True); time.sleep(30)",
            str(tmp_path / "held.duckdb"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "ok"
        done = _tracegrade("score", "--db", str(tmp_path / "held.duckdb"), cwd=tmp_path)
    finally:
        holder.kill()
        holder.wait()
        assert holder.stdout is not None
        holder.stdout.close()
    assert done.returncode == 2
    assert f"is locked by process {holder.pid}" in done.stderr
    assert "Traceback" not in done.stderr
