"""The selected traces' spans normalised once for a scoring (queries/scoring/00_selected.sql).

`select_traces` fills the `scoring_*` tables and the `scoring_turns` view for the traces a
WHERE clause over `spans` keeps; `drop_selected` drops them. Scoring, the `where` of a
selection and the traffic report read the turns of a few traces from them, where the views
would normalise and walk every stored span. The traces whose turn facts the writer keeps
(store.turn_facts) are read from those, and only the others normalised.

`create_scored_turns` is the one place the scorers' `scored_turns` is made.
"""

from __future__ import annotations

from typing import Any

import duckdb

from tracegrade._resources import scoring_sql
from tracegrade.store.turn_facts import (
    FRESH_TRACES,
    SELECTED_TABLES,
    SELECTED_VIEWS,
    mark_fresh,
)


def select_traces(
    connection: duckdb.DuckDBPyConnection,
    traces: tuple[str, list[Any]] | None,
    *,
    read_facts: bool = True,
) -> None:
    """Normalise the spans of the traces `traces` keeps (a WHERE clause over `spans` and its
    parameters; None: every trace) into the tables of queries/scoring/00_selected.sql, but
    for the traces with fresh turn facts, read from those (unless not `read_facts`); their
    eval cases' expected turns into those of 00_expected.sql."""
    source = "spans"
    from_files = _spans_read_from_files(connection)
    if traces is not None:
        # Kept in a table, as a view cannot hold parameters.
        connection.execute(
            "CREATE OR REPLACE TEMP TABLE scoring_traces AS "  # noqa: S608 — Selection's own SQL; values are parameters
            f"SELECT DISTINCT trace_id FROM spans WHERE {traces[0]}",
            traces[1],
        )
        if not _keeps_every_trace(connection, from_files):
            source = "spans WHERE trace_id IN (SELECT trace_id FROM scoring_traces)"
    _drop_spans(connection)
    # 00_selected.sql reads scoring_spans several times. Over the archive each read decodes
    # every Parquet row group of the window (a sample by trace id prunes none): there the
    # selected spans are read once into a table (2k sampled turns of 20.8M archived spans,
    # bench/scale: 142 s to 70 s). Hot spans are read through a view, sparing the copy.
    kind = "TABLE" if traces is not None and from_files else "VIEW"
    connection.execute(f"CREATE TEMP {kind} scoring_spans AS SELECT * FROM {source}")  # noqa: S608 — constants
    # The archive's spans are counted only by reading its files: they are rebuilt.
    mark_fresh(connection, read_facts=read_facts and not from_files)
    connection.execute(scoring_sql("selected"))
    connection.execute(scoring_sql("expected"))


# Whether a turn of an eval run has an expected turn to be scored against.
_HAS_EXPECTED = """EXISTS (
    SELECT 1 FROM scoring_expected_turns e
    WHERE e.run_id = t.run_id AND e.eval_set_id = t.eval_set_id
      AND e.case_id = t.case_id AND e.turn_index = t.turn_index
)"""


def create_scored_turns(
    connection: duckdb.DuckDBPyConnection,
    where: str = "true",
    params: list[Any] | None = None,
    *,
    turns: str = "scoring_turns",
) -> None:
    """`scored_turns`: the rows of `turns` (scoring_turns, made by `select_traces`, or a
    relation of some of its columns) that `where` keeps, with `has_expected`: the
    relation's own column where it has one (the Spark driver's task rows), else whether
    the turn has an expected turn among the selected eval cases."""
    columns = {row[0] for row in connection.execute(f"DESCRIBE {turns}").fetchall()}
    expected = "" if "has_expected" in columns else f", {_HAS_EXPECTED} AS has_expected"
    connection.execute(
        f"CREATE OR REPLACE TEMP TABLE scored_turns AS SELECT t.*{expected} "  # noqa: S608 — the predicate is Selection's own SQL; values are parameters
        f"FROM {turns} t WHERE {where}",
        params or [],
    )


def _keeps_every_trace(connection: duckdb.DuckDBPyConnection, from_files: bool) -> bool:
    """Whether the selection keeps every stored trace (a file holding one eval run): then
    the views read `spans` as they are, without the filter (~1.3 s CPU at 1.16M spans;
    counting the traces takes ~0.03 s). Not asked of the archive, where counting would read
    every trace id of its files."""
    if from_files:
        return False
    found = connection.execute(
        "SELECT (SELECT count(*) FROM scoring_traces) "
        "= (SELECT count(DISTINCT trace_id) FROM spans)"
    ).fetchall()
    return bool(found[0][0])


# What 00_selected.sql and 00_expected.sql make, and what score --evalset matches
# (scoring/matching.py).
_SELECTED_TABLES = (
    *SELECTED_TABLES,
    "scoring_case_spans",
    "scoring_expected_turns",
    "scoring_traces",
    "scoring_case_repeats",
    "scoring_matches",
    "scoring_sessions",
    FRESH_TRACES,
)


def drop_selected(connection: duckdb.DuckDBPyConnection) -> None:
    """The normalised spans hold memory the scorers need, and the input tables have what
    the scorers read."""
    for view in SELECTED_VIEWS:
        connection.execute(f"DROP VIEW IF EXISTS {view}")
    _drop_spans(connection)
    for table in _SELECTED_TABLES:
        connection.execute(f"DROP TABLE IF EXISTS {table}")


def _spans_read_from_files(connection: duckdb.DuckDBPyConnection) -> bool:
    """`spans` is the hot table and the archive as one (store.archive_location)."""
    return bool(
        connection.execute(
            "SELECT 1 FROM duckdb_views() WHERE view_name = 'spans' AND temporary"
        ).fetchall()
    )


def _drop_spans(connection: duckdb.DuckDBPyConnection) -> None:
    """scoring_spans, a table or a view (DuckDB's DROP names the kind)."""
    found = connection.execute(
        "SELECT table_type FROM information_schema.tables WHERE table_name = 'scoring_spans'"
    ).fetchall()
    if found:
        connection.execute(
            "DROP VIEW scoring_spans" if found[0][0] == "VIEW" else "DROP TABLE scoring_spans"
        )
