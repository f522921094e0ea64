"""collector-config/eval.yaml in a real Collector: a `tracegrade run --otlp-endpoint` through it
reaches a real `tracegrade serve` whole (bearer token on the way), and scores as in process."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.collector.helpers import ROOT, TOKEN, start_collector, start_serve
from tests.serve.helpers import TRACEGRADE, free_port

pytestmark = pytest.mark.slow

# The eval set tests/serve/test_eval_over_otlp.py runs straight to serve. (The home_automation
# example's config names its judge by a .py path, which a server refuses to import per request.)
SHOP = ROOT / "tests" / "data" / "evalsets" / "harness" / "shop.evalset.json"
AGENT = "tests.harness.shop_agent.agent:root_agent"
CRITERIA = {"criteria": {"tool_trajectory_avg_score": 1.0}, "tracegrade": {"max_error_rate": 0.5}}
SCORES = """
    SELECT case_id, repeat, turn_index, metric, score, status
    FROM scores
    WHERE scoring_id = (SELECT scoring_id FROM scorings ORDER BY scored_at DESC LIMIT 1)
      AND level IN ('turn', 'case') AND metric NOT IN ('latency', 'invocation_duration')
"""
SPANS = "SELECT name, count(*) FROM spans GROUP BY name"


def _run(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # The agent's module is under tests/; keep any PYTHONPATH already set (the source under test).
    path = os.pathsep.join(p for p in (os.environ.get("PYTHONPATH"), str(ROOT)) if p)
    env = {**os.environ, "TRACEGRADE_TOKEN": TOKEN, "PYTHONPATH": path}
    command = [TRACEGRADE, "run", str(SHOP), "--agent", AGENT, "--config", str(config), *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300, env=env)


def _rows(db: Path, query: str) -> list[tuple[Any, ...]]:
    with duckdb.connect(str(db), read_only=True) as connection:
        return connection.execute(query).fetchall()


def _scores(db: Path) -> dict[tuple[Any, ...], tuple[Any, ...]]:
    """Every turn and case score of the latest scoring, by case, repeat, turn and metric."""
    return {row[:4]: row[4:] for row in _rows(db, SCORES)}


def _span_names(db: Path) -> dict[str, int]:
    """How many spans of each name (the ids differ between two runs, the shape does not)."""
    return dict(_rows(db, SPANS))


def test_a_run_through_the_eval_collector_scores_like_an_in_process_run(
    otelcol: Path, tmp_path: Path
) -> None:
    config = tmp_path / "criteria.json"
    config.write_text(json.dumps(CRITERIA))
    local = _run(config, "--db", str(tmp_path / "local.duckdb"))
    serve = start_serve(tmp_path, tmp_path / "served.duckdb", free_port(), free_port())
    try:
        collector = start_collector(
            otelcol, "eval.yaml", tmp_path, {"TRACEGRADE_ENDPOINT": serve.url}
        )
        try:
            remote = _run(config, "--otlp-endpoint", collector.http_url, "--server", serve.url)
        finally:
            collector.stop()
        unauthenticated = serve.post("/v1/traces", b"", {"authorization": "Bearer wrong"})
    finally:
        serve.stop()

    # One case of the set fails on purpose: both runs exit 1, with the same scores.
    assert local.returncode == remote.returncode == 1, (local.stderr, remote.stderr)
    assert unauthenticated.status == 401  # so what arrived came with the Collector's token
    ours, theirs = _scores(tmp_path / "local.duckdb"), _scores(serve.db)
    assert len(ours) > 5
    assert ours == theirs, collector.stderr()
    local_spans = _span_names(tmp_path / "local.duckdb")
    assert sum(local_spans.values()) > 10
    assert _span_names(serve.db) == local_spans
