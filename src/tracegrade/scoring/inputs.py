"""Filling the scorers' input tables directly, without spans.

`prepare_inputs` (engine) fills `scored_turns`, `scored_calls`, `scored_llm_calls`,
`scored_expected` and `scored_expected_calls` from the views. For testing a metric, or
benchmarking, `load_inputs` fills the same tables from columns of values instead: the
tables are created with exactly the engine's schema, then the given columns inserted
(columns not given are NULL).

The tables are the scorer-input contract: defined once, in queries/scoring/01_inputs.sql
and 02_derived.sql, whose header blocks document them column by column (`documented_inputs`,
from which docs/metrics.md is generated).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import duckdb
import numpy as np

from tracegrade._resources import scoring_sql, sql_files
from tracegrade.scoring.functions import register_functions
from tracegrade.scoring.prices import load_prices
from tracegrade.scoring.selected import create_scored_turns, drop_selected, select_traces
from tracegrade.store import connect
from tracegrade.store.schema_docs import Relation, document

INPUT_TABLES = (
    "scored_turns",
    "scored_calls",
    "scored_llm_calls",
    "scored_expected",
    "scored_expected_calls",
    "scored_plan",
    "scored_judgements",
)


CONTRACT_FILES = ("inputs", "derived")
"""The queries/scoring/NN_<step>.sql files whose header blocks document the inputs."""


def documented_inputs() -> list[Relation]:
    """Every table a metric's SQL can read, column by column from its SQL header, checked
    against the tables as the engine makes them (an undocumented column raises)."""
    connection = connect(":memory:")
    try:
        create_empty_inputs(connection)
        load_prices(connection, {})
        connection.execute(scoring_sql("derived"))
        paths = [p for p in sql_files("scoring") if p.stem.split("_", 1)[1] in CONTRACT_FILES]
        return document(connection, "input table", paths)
    finally:
        connection.close()


_MACRO_DOC = re.compile(r"^-- (tg_\w+\([^)]*\)): (.*)$")
_MACRO = re.compile(r"^CREATE OR REPLACE TEMP MACRO (tg_\w+)\(", re.M)


def documented_macros() -> list[tuple[str, str]]:
    """The macros over the input tables a metric may call, (signature, what it gives), from
    the comment above each; a macro without one raises."""
    found: list[tuple[str, str]] = []
    for path in sql_files("scoring"):
        if path.stem.split("_", 1)[1] not in CONTRACT_FILES:
            continue
        text = path.read_text()
        documented: dict[str, tuple[str, list[str]]] = {}
        current: list[str] | None = None
        for line in text.splitlines():
            if match := _MACRO_DOC.match(line):
                current = [match[2]]
                documented[match[1].split("(")[0]] = (match[1], current)
            elif current is not None and line.startswith("-- "):
                current.append(line[3:])
            else:
                current = None
        for name in _MACRO.findall(text):
            if name not in documented:
                raise ValueError(f"{path.name}: macro {name} has no `-- {name}(...): ...` comment")
            signature, doc = documented[name]
            found.append((signature, " ".join(doc)))
    return found


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
