"""The views the data model promises (DESIGN.md): tests check each exists and is documented;
and their rows read as dicts."""

from __future__ import annotations

from typing import Any

import duckdb

VIEWS = {
    "agent_spans",
    "span_tree",
    "llm_calls",
    "tool_calls",
    "turns",
    "trajectories",
    "eval_runs",
    "expected_turns",
    "expected_tool_calls",
    "tool_definitions",
}


def dict_rows(
    connection: duckdb.DuckDBPyConnection, sql: str, *params: Any
) -> list[dict[str, Any]]:
    """The rows of `sql` as dicts keyed by column name."""
    cursor = connection.execute(sql, list(params))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
