"""On the driver: the case and run levels from the tasks' turn rows, and the Parquet out.

The tasks' rows become `scored_turns` and `turn_scores` in an in-memory DuckDB holding the
store's tables, and the same queries/scoring/03_levels.sql and 04_store.sql make `scores`
and `case_results`; the gate (scoring/verdict.py) decides the verdict and exit code as for
`tracegrade score`, recorded in `scorings`. The three are written as Parquet in the shape
of those tables.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from tracegrade._resources import scoring_sql, sql_files
from tracegrade.errors import TracegradeError
from tracegrade.scoring import engine
from tracegrade.scoring.criteria import parse_config
from tracegrade.scoring.functions import register_functions
from tracegrade.scoring.metrics import available_metrics
from tracegrade.scoring.selected import create_scored_turns, drop_selected, select_traces
from tracegrade.scoring.selection import Selection
from tracegrade.scoring.stored import run_criteria
from tracegrade.scoring.verdict import ScoringResult, decide
from tracegrade.spark.tasks import load_spans
from tracegrade.store.view_functions import register_view_functions

OUTPUTS = ("scores", "case_results", "scorings")


def levels(
    rows: pa.Table,
    config_raw: dict[str, Any],
    selection: Selection,
    eval_spans: pa.Table | None = None,
) -> tuple[duckdb.DuckDBPyConnection, ScoringResult]:
    """A DuckDB whose `scores`, `case_results` and `scorings` hold this scoring's rows, and
    the gate's result. An eval run's own spans give its plan (queries/scoring/01_inputs.sql's
    `scored_plan`), and so the turns that never ran."""
    if not rows.num_rows:
        raise TracegradeError("no turns matched in the archive: nothing to score")
    specs = available_metrics()
    config = parse_config(config_raw, specs)
    connection = _store(eval_spans)
    connection.register("task_rows", rows)
    connection.execute(
        "CREATE TEMP VIEW task_turns AS SELECT DISTINCT turn_id, trace_id, run_id, "
        "eval_set_id, case_id, repeat, turn_index, is_error, has_expected "
        "FROM task_rows WHERE metric IS NULL"
    )
    create_scored_turns(connection, turns="task_turns")
    connection.execute(
        "CREATE TEMP TABLE turn_scores AS SELECT metric, turn_id, score, detail::JSON AS detail "
        "FROM task_rows WHERE metric IS NOT NULL"
    )
    # For scored_plan and scored_scenario_cases, from the run's own spans; the calls it
    # also selects (none: the driver holds no agent spans) are left unused.
    select_traces(connection, None)
    connection.execute(scoring_sql("inputs"))
    drop_selected(connection)
    ((has_expected,),) = connection.execute(
        "SELECT coalesce(bool_or(has_expected), false) FROM scored_turns"
    ).fetchall()
    config = engine.applicable(config, specs, selection.run_id, has_expected=bool(has_expected))
    engine.load_criteria(connection, config, specs)
    scoring_id = uuid.uuid4().hex[:12]
    engine.store_levels(connection, config, scoring_id)
    result = decide(connection, scoring_id, selection, config)
    engine.record(connection, result, selection, config)
    return connection, result


def write_outputs(connection: duckdb.DuckDBPyConnection, out: Path) -> dict[str, int]:
    """`scores` and `case_results` as out/<table>.parquet; rows written per table."""
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    for table in OUTPUTS:
        target = str(out / f"{table}.parquet").replace("'", "''")
        connection.execute(f"COPY {table} TO '{target}' (FORMAT parquet, COMPRESSION zstd)")
        ((count,),) = connection.execute(f"SELECT count(*) FROM {table}").fetchall()  # noqa: S608
        written[table] = int(count)
    return written


def run_criteria_of(eval_spans: pa.Table, run_id: str) -> dict[str, Any] | None:
    """The criteria an eval run was made with, read from its own spans."""
    connection = _store(eval_spans)
    try:
        return run_criteria(connection, run_id)
    finally:
        connection.close()


def _store(spans: pa.Table | None) -> duckdb.DuckDBPyConnection:
    """An in-memory store holding `spans` (or none), with the views and functions."""
    connection = duckdb.connect()
    if spans is not None:
        load_spans(connection, spans)
    else:
        # Macros first, as `connect` does: migration 004 fills spans.attrs with one.
        for path in [*sql_files("macros"), *sql_files("migrations")]:
            connection.execute(path.read_text())
    for path in sql_files("views"):
        connection.execute(path.read_text())
    register_view_functions(connection)
    register_functions(connection)
    return connection
