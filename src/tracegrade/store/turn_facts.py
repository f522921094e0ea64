"""Turn facts: each complete trace's turns and calls, computed once, by the one writer.

Scoring reads each turn as a row of `scoring_turns` with its calls (`scoring_turn_calls`,
`scoring_turn_llm_calls`; queries/scoring/00_selected.sql), built from spans that never
change once the turn is complete. The writer (store.writer) hands the traces each batch
touched to a `FactKeeper`, whose thread computes those rows with the same SQL into
`turn_facts`, `turn_fact_calls` and `turn_fact_llm_calls` (migration 010), and an eval
run's case spans into `turn_fact_cases` (012), off the commit path, so ingest does not
wait for it. Scoring (`mark_fresh`) then reads the facts of the traces whose facts are
fresh and rebuilds only the others from their spans.

A trace is complete once it holds a root span (one without a parent): OTel exports a span
when it ends, and a turn's root ends after everything under it. Facts are computed per
trace, not per turn: where a span belongs in its turn depends on its trace's other spans
(an eval turn, and an ADK invocation, is a trace of its own). A late span, one stored after
its trace's facts, makes them stale at once: `turn_fact_traces` records how many spans the
trace held, and facts whose count no longer matches are not read. The keeper recomputes
that trace, and only it, on its next pass. The same holds for an eval run's span (its tool
definitions feed its turns' calls), a span archived or pruned away, and a tracegrade whose
SQL differs (`version`). A trace whose root never arrives (its parent lives in another
service's store), a database written before migration 010, or one whose keeper stopped
before its last pass has no fresh facts there: scoring rebuilds those from spans, into
the same rows.
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
import time
from collections.abc import Iterable
from functools import lru_cache

import duckdb

from tracegrade._resources import queries_dir, scoring_sql, sql_files
from tracegrade.store.archive_location import hot_spans
from tracegrade.store.view_functions import register_view_functions

logger = logging.getLogger("tracegrade.store")

FACT_TABLES = (
    "turn_facts",
    "turn_fact_calls",
    "turn_fact_llm_calls",
    "turn_fact_cases",
    "turn_fact_traces",
)
FRESH_TRACES = "scoring_fact_traces"
_CANDIDATES = "_tracegrade_fact_candidates"
# What queries/scoring/00_selected.sql makes: dropped after a pass here, after a scoring
# in scoring/selected.py.
SELECTED_TABLES = (
    "scoring_spans",
    "scoring_agent_spans",
    "scoring_span_tree",
    "scoring_llm_calls",
    "scoring_tool_calls",
    "scoring_rebuilt_traces",
)
SELECTED_VIEWS = (
    "scoring_turn_llm_calls",
    "scoring_turn_calls",
    "scoring_turns",
    "scoring_model_spans",
    "scoring_rebuilt_spans",
)


@lru_cache(maxsize=1)
def version() -> str:
    """A digest of the SQL the facts are made by: facts another tracegrade made are stale."""
    paths = [
        *sql_files("macros"),
        *sql_files("views"),
        queries_dir() / "scoring" / "00_selected.sql",
    ]
    text = "\0".join(f"{path.name}\0{path.read_text()}" for path in paths)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def mark_fresh(connection: duckdb.DuckDBPyConnection, *, read_facts: bool = True) -> None:
    """`scoring_fact_traces`: the traces of `scoring_spans` whose stored facts are fresh
    (none when not `read_facts`, or when the database has no fact tables)."""
    if not read_facts or not _has_facts(connection):
        connection.execute(f"CREATE OR REPLACE TEMP TABLE {FRESH_TRACES} (trace_id VARCHAR)")
        return
    # The one freshness rule (queries/macros/40_turn_facts.sql), which the pages read too.
    connection.execute(
        f"CREATE OR REPLACE TEMP TABLE {FRESH_TRACES} AS "  # noqa: S608 — constants
        "SELECT trace_id FROM tg_fresh_fact_traces('scoring_spans', 'turn_fact_traces', ?)",
        [version()],
    )


# Whether the database has the fact tables (migration 010): one row, its count 0 or 1. SQL
# rather than a function of a connection, for the reports' `Reader`, local or remote.
HAS_FACTS = (
    "SELECT count(*) AS found FROM duckdb_tables() WHERE NOT temporary AND schema_name = 'main' "
    "AND database_name = current_database() AND table_name = 'turn_fact_traces'"
)


def _has_facts(connection: duckdb.DuckDBPyConnection) -> bool:
    return bool(connection.execute(HAS_FACTS).fetchall()[0][0])


def refresh(connection: duckdb.DuckDBPyConnection, traces: Iterable[str]) -> int:
    """Compute the facts of `traces` that are complete, and of the traces whose eval-run
    span came among them, replacing what was stored; the traces computed. `connection`
    must be one of the keeper's own (its temporary tables are scoring's names)."""
    import numpy as np  # only where facts are computed: `version` is read by every report

    candidates = np.array(sorted(set(traces)), dtype=object)
    if not len(candidates):
        return 0
    spans = hot_spans(connection)
    connection.register(_CANDIDATES, {"trace_id": candidates})
    # One transaction: the spans read and the count recorded are of one snapshot, while the
    # writer goes on committing spans on its own connection.
    connection.execute("BEGIN TRANSACTION")
    try:
        # The candidates' roots and eval-run spans, in one scan. The writer stores `attrs`
        # with every span, so the run id is read from there, not from the JSON.
        connection.execute(
            f"""
            CREATE OR REPLACE TEMP TABLE scoring_traces AS
            WITH candidate AS (
                SELECT trace_id, parent_span_id, scope_name, name,
                       attrs."tracegrade.run_id" AS run_id
                FROM {spans} WHERE trace_id IN (SELECT trace_id FROM {_CANDIDATES})
            )
            SELECT DISTINCT trace_id FROM candidate WHERE parent_span_id IS NULL
            UNION
            SELECT trace_id FROM turn_fact_traces
            WHERE run_id IN (
                SELECT run_id FROM candidate
                WHERE scope_name = 'tracegrade' AND name = 'tracegrade.eval_run'
            )
            """  # noqa: S608 — constants
        )
        computed = _compute(connection, spans)
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    finally:
        connection.unregister(_CANDIDATES)
        _drop(connection)
    return computed


def _compute(connection: duckdb.DuckDBPyConnection, spans: str) -> int:
    ((count,),) = connection.execute("SELECT count(*) FROM scoring_traces").fetchall()
    if not count:
        return 0
    # A table: 00_selected.sql reads the spans several times, and each read of a view over
    # `spans` would scan every stored span's trace id again.
    connection.execute(
        "CREATE OR REPLACE TEMP TABLE scoring_spans AS "  # noqa: S608 — constants
        f"SELECT * FROM {spans} WHERE trace_id IN (SELECT trace_id FROM scoring_traces)"
    )
    mark_fresh(connection, read_facts=False)
    connection.execute(scoring_sql("selected"))
    connection.execute("CREATE OR REPLACE TEMP TABLE _tg_fact_turns AS SELECT * FROM scoring_turns")
    # Facts to replace (a late span's trace): deleting scans the fact tables, so it is
    # done only when one of the traces has facts, which `turn_fact_traces` (a row a trace)
    # tells in one scan.
    ((replaced,),) = connection.execute(
        "SELECT count(*) FROM turn_fact_traces SEMI JOIN scoring_traces USING (trace_id)"
    ).fetchall()
    if replaced:
        _delete_facts(connection)
    connection.execute("INSERT INTO turn_facts BY NAME SELECT * FROM _tg_fact_turns")
    connection.execute(
        "INSERT INTO turn_fact_calls BY NAME SELECT c.* FROM scoring_turn_calls c "
        "SEMI JOIN _tg_fact_turns t USING (turn_id)"
    )
    connection.execute(
        "INSERT INTO turn_fact_llm_calls BY NAME SELECT l.* FROM scoring_turn_llm_calls l "
        "SEMI JOIN _tg_fact_turns t USING (turn_id)"
    )
    connection.execute(
        "INSERT INTO turn_fact_cases SELECT trace_id, span_id, attributes FROM scoring_spans "
        "WHERE scope_name = 'tracegrade' AND name = 'tracegrade.eval_case'"
    )
    connection.execute(
        """
        INSERT INTO turn_fact_traces (trace_id, spans, run_id, run_spans, version)
        WITH counted AS (
            SELECT trace_id, count(*) AS spans FROM scoring_spans GROUP BY trace_id
        ),
        trace_runs AS (
            SELECT trace_id, min(run_id) AS run_id FROM _tg_fact_turns GROUP BY trace_id
        ),
        runs AS (
            SELECT run_id, count(*) AS run_spans
            FROM tg_run_ids('spans', 'tracegrade.eval_run')
            WHERE run_id IN (SELECT run_id FROM trace_runs)
            GROUP BY run_id
        )
        SELECT c.trace_id, c.spans, t.run_id, coalesce(r.run_spans, 0), ?
        FROM counted c
        LEFT JOIN trace_runs t USING (trace_id)
        LEFT JOIN runs r ON r.run_id = t.run_id
        """,
        [version()],
    )
    return int(count)


def _delete_facts(connection: duckdb.DuckDBPyConnection) -> None:
    """The stored facts of the traces in `scoring_traces`."""
    for table in ("turn_fact_calls", "turn_fact_llm_calls"):
        connection.execute(
            f"DELETE FROM {table} WHERE turn_id IN (SELECT turn_id FROM turn_facts "  # noqa: S608 — constants
            "WHERE trace_id IN (SELECT trace_id FROM scoring_traces))"
        )
    for table in ("turn_facts", "turn_fact_cases", "turn_fact_traces"):
        connection.execute(
            f"DELETE FROM {table} WHERE trace_id IN (SELECT trace_id FROM scoring_traces)"  # noqa: S608 — constants
        )


def _drop(connection: duckdb.DuckDBPyConnection) -> None:
    for view in SELECTED_VIEWS:
        connection.execute(f"DROP VIEW IF EXISTS {view}")
    for table in (*SELECTED_TABLES, "scoring_traces", FRESH_TRACES, "_tg_fact_turns"):
        connection.execute(f"DROP TABLE IF EXISTS {table}")


class FactKeeper:
    """A thread that keeps the facts of the traces a writer stores, on its own connection
    (a cursor of the writer's), a pass at a time.

    Computing facts costs CPU that ingest needs while spans pour in (measured in serve on
    2 cores: computed beside a burst, they halved its spans/s). So a pass waits until the
    writer has stored nothing for `quiet_s`, or until the oldest trace waiting has waited
    `max_wait_s` (under steady load). A larger pass also costs less a span: a pass has a
    fixed cost of ~0.3 s CPU (measured on 116k stored spans: 10k traces in one pass took
    2.0 s CPU, in passes of 250 traces 13.6 s). Traces touched while a pass runs wait for
    the next.
    """

    def __init__(
        self,
        connection: duckdb.DuckDBPyConnection,
        *,
        quiet_s: float = 0.5,
        max_wait_s: float = 30.0,
    ) -> None:
        self._connection = connection.cursor()
        register_view_functions(self._connection)
        self._quiet_s, self._max_wait_s = quiet_s, max_wait_s
        self._touched: set[str] = set()
        self._first_touch = self._last_touch = 0.0
        self._busy = False
        self._closing = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="tracegrade-facts", daemon=True)
        self._thread.start()

    def touched(self, traces: Iterable[str]) -> None:
        """Traces a committed batch stored spans of."""
        now = time.monotonic()
        with self._cond:
            if not self._touched:
                self._first_touch = now
            self._last_touch = now
            self._touched.update(traces)
            self._cond.notify_all()

    def flush(self, timeout: float | None = None) -> bool:
        """Compute every trace touched so far now; False if `timeout` ran out first."""
        with self._cond:
            self._first_touch = -math.inf  # due at once
            self._cond.notify_all()
            return self._cond.wait_for(
                lambda: (not self._touched and not self._busy) or not self._thread.is_alive(),
                timeout,
            )

    def close(self, timeout: float | None = None) -> None:
        """Compute what is touched, then stop the thread and close its connection."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self._thread.join(timeout)
        if not self._thread.is_alive():
            self._connection.close()

    def _due_in(self) -> float:
        """Seconds until the touched traces are due (0: now)."""
        if self._closing:
            return 0.0
        now = time.monotonic()
        quiet = self._last_touch + self._quiet_s - now
        waited = self._first_touch + self._max_wait_s - now
        return max(0.0, min(quiet, waited))

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._touched or self._closing)
                while self._touched and (due := self._due_in()) > 0:
                    self._cond.wait(due)
                if not self._touched:
                    return
                traces, self._touched = self._touched, set()
                self._busy = True
            try:
                refresh(self._connection, traces)
            except Exception as exc:  # the facts are a cache: scoring rebuilds without them
                logger.warning("turn facts of %d traces not kept: %s", len(traces), exc)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()


def keep_all(connection: duckdb.DuckDBPyConnection, *, part: int = 20_000) -> int:
    """Compute the facts of every stored trace that has none fresh (a database written
    before migration 10, or by a keeper that stopped early), `part` traces a transaction;
    the traces computed. On a cursor of its own, as `refresh`."""
    register_view_functions(connection)
    connection.execute(
        "CREATE OR REPLACE TEMP VIEW scoring_spans AS SELECT * FROM "  # noqa: S608 — constants
        f"{hot_spans(connection)}"
    )
    try:
        mark_fresh(connection)
        stale = [
            row[0]
            for row in connection.execute(
                "SELECT DISTINCT trace_id FROM scoring_spans "  # noqa: S608 — constants
                f"ANTI JOIN {FRESH_TRACES} USING (trace_id) ORDER BY trace_id"
            ).fetchall()
        ]
    finally:
        connection.execute("DROP VIEW IF EXISTS scoring_spans")
        connection.execute(f"DROP TABLE IF EXISTS {FRESH_TRACES}")
    return sum(refresh(connection, stale[i : i + part]) for i in range(0, len(stale), part))
