"""Reading the views back, for the interop tests."""

from __future__ import annotations

import json
from typing import Any

import duckdb


def rows(connection: duckdb.DuckDBPyConnection, sql: str) -> list[dict[str, Any]]:
    cursor = connection.execute(sql)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def turns(connection: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    return rows(
        connection,
        "SELECT t.*, tr.calls FROM turns t JOIN trajectories tr USING (turn_id)"
        " ORDER BY t.start_ns",
    )


def trajectory(turn: dict[str, Any]) -> list[tuple[str, Any]]:
    """The turn's calls as (name, parsed arguments)."""
    return [(c["name"], json.loads(c["args"]) if c["args"] else None) for c in turn["calls"]]
