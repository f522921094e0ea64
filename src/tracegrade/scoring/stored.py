"""What stored eval runs say about their own scoring: the latest run, its criteria.

The application layer (`tracegrade.workspace.scoring`) scores stored turns with them.
"""

from __future__ import annotations

import json
from typing import Any

import duckdb

from tracegrade.scoring.engine import NothingToScore
from tracegrade.store.reader import LocalReader
from tracegrade.store.run_identity import latest_run


def latest_run_id(connection: duckdb.DuckDBPyConnection, token: str | None = None) -> str:
    """The run this database received last (with `token`: of the runs it attests)."""
    found = latest_run(LocalReader(connection), token)
    if found is not None:
        return found
    if token is not None and latest_run(LocalReader(connection), None) is not None:
        raise NothingToScore(
            "no stored eval run is signed under this token (a run recorded without it, or a "
            "forged one): name the run to score (run_id, --run); `tracegrade runs` marks them"
        )
    raise NothingToScore("no eval run is stored: record one with `tracegrade run`")


def run_criteria(connection: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, Any] | None:
    """The criteria document a run was made with, or None when it had none."""
    rows = connection.execute(
        # A run id sent twice is the run as first received (store.run_identity).
        "SELECT criteria FROM eval_runs WHERE run_id = ? ORDER BY received_at LIMIT 1",
        [run_id],
    ).fetchall()
    if not rows:
        raise NothingToScore(
            f"no eval run '{run_id}' is stored (see `tracegrade runs`); where spans are "
            "routed to several shards, its own trace may be on another: give each shard's "
            "--db to score them together"
        )
    document = json.loads(rows[0][0]) if rows[0][0] else None
    return document or None
