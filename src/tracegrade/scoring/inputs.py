"""Filling the scorers' input tables directly, without spans.

`prepare_inputs` (engine) fills `scored_turns`, `scored_calls`, `scored_llm_calls`,
`scored_expected` and `scored_expected_calls` from the views. For testing a metric, or
benchmarking, `load_inputs` fills the same tables from columns of values instead: the
tables are created with exactly the engine's schema, then the given columns inserted
(columns not given are NULL).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import duckdb
import numpy as np

from tracegrade._resources import scoring_sql
from tracegrade.scoring.functions import register_functions
from tracegrade.scoring.selected import create_scored_turns, drop_selected, select_traces

INPUT_TABLES = (
    "scored_turns",
    "scored_calls",
    "scored_llm_calls",
    "scored_expected",
    "scored_expected_calls",
    "scored_plan",
    "scored_judgements",
)


def create_empty_inputs(connection: duckdb.DuckDBPyConnection) -> None:
    register_functions(connection)
    select_traces(connection, ("false", []))  # the engine's own path, over no trace
    create_scored_turns(connection, "false")
    connection.execute(scoring_sql("inputs"))
    drop_selected(connection)


def load_inputs(
    connection: duckdb.DuckDBPyConnection,
    tables: Mapping[str, Mapping[str, Sequence[Any]]],
    *,
    append: bool = False,
    derive: bool = True,
) -> None:
    """`tables`: for each input table, a mapping of column name to values (equal lengths).
    Every input table is emptied first, unless `append` (to load in parts); the derived
    tables are rebuilt unless `derive` is False (a part that more parts follow)."""
    if append and _inputs_exist(connection):
        pass
    elif _inputs_exist(connection):
        for table in INPUT_TABLES:
            connection.execute(f"DELETE FROM {table}")  # noqa: S608 — a name from INPUT_TABLES
    else:
        create_empty_inputs(connection)
    for table, columns in tables.items():
        if table not in INPUT_TABLES:
            raise ValueError(f"{table} is not a scorer input table ({', '.join(INPUT_TABLES)})")
        _insert(connection, table, columns)
    if derive:
        connection.execute(scoring_sql("derived"))


def _inputs_exist(connection: duckdb.DuckDBPyConnection) -> bool:
    found = connection.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE temporary AND table_name IN "  # noqa: S608 — placeholders only
        f"({', '.join('?' for _ in INPUT_TABLES)})",
        list(INPUT_TABLES),
    ).fetchall()
    return bool(found) and found[0][0] == len(INPUT_TABLES)


def _insert(
    connection: duckdb.DuckDBPyConnection, table: str, columns: Mapping[str, Sequence[Any]]
) -> None:
    arrays = {name: _array(values) for name, values in columns.items()}
    names = ", ".join('"' + name.replace('"', '""') + '"' for name in arrays)
    connection.register("_tg_input_rows", arrays)
    try:
        connection.execute(f"INSERT INTO {table} ({names}) SELECT {names} FROM _tg_input_rows")  # noqa: S608 — table checked against INPUT_TABLES; names quoted
    finally:
        connection.unregister("_tg_input_rows")


def _array(values: Sequence[Any]) -> np.ndarray:
    if isinstance(values, np.ndarray):
        return values
    if values and all(isinstance(v, bool) for v in values):
        return np.array(values, dtype=bool)
    if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return np.array(values, dtype=np.int64)
    if values and all(isinstance(v, float) for v in values):
        return np.array(values, dtype=np.float64)
    return np.array(values, dtype=object)
