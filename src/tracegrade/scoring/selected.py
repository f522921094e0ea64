"""The selected traces' spans normalised once for a scoring (queries/scoring/00_selected.sql).

`select_traces` fills the `scoring_*` tables and the `scoring_turns` view for the traces a
WHERE clause over `spans` keeps; `drop_selected` drops them. Scoring, the `where` of a
selection and the traffic report read the turns of a few traces from them, where the views
would normalise and walk every stored span.
"""

from __future__ import annotations

from typing import Any

import duckdb

from tracegrade._resources import scoring_sql


def select_traces(
    connection: duckdb.DuckDBPyConnection, traces: tuple[str, list[Any]] | None
) -> None:
    """Normalise the spans of the traces `traces` keeps (a WHERE clause over `spans` and its
    parameters; None: every trace) into the tables of queries/scoring/00_selected.sql."""
    source = "spans"
    if traces is not None:
        # Kept in a table, as a view cannot hold parameters.
        connection.execute(
            "CREATE OR REPLACE TEMP TABLE scoring_traces AS "  # noqa: S608 — Selection's own SQL; values are parameters
            f"SELECT DISTINCT trace_id FROM spans WHERE {traces[0]}",
            traces[1],
        )
        source = "spans WHERE trace_id IN (SELECT trace_id FROM scoring_traces)"
    connection.execute(f"CREATE OR REPLACE TEMP VIEW scoring_spans AS SELECT * FROM {source}")  # noqa: S608 — one of two constants
    connection.execute(scoring_sql("selected"))


_SELECTED = ("scoring_turns", "scoring_spans")  # views, then tables
_SELECTED_TABLES = (
    "scoring_agent_spans",
    "scoring_span_tree",
    "scoring_llm_calls",
    "scoring_tool_calls",
    "scoring_traces",
)


def drop_selected(connection: duckdb.DuckDBPyConnection) -> None:
    """The normalised spans hold memory the scorers need, and the input tables have what
    the scorers read."""
    for view in _SELECTED:
        connection.execute(f"DROP VIEW IF EXISTS {view}")
    for table in _SELECTED_TABLES:
        connection.execute(f"DROP TABLE IF EXISTS {table}")
