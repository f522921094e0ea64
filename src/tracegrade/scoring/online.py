"""Online scoring: one pass of one rule over the turns completed since its cursor.

A turn is complete once its trace's root span is stored (the span without a parent, or,
in a trace continuing a caller's context, the server or consumer span without a stored
parent that starts first and ends last) and the trace's last span was stored at or before
the pass's horizon (now minus the quiet period, read under the writer's commit lock, so
every span stored up to it is visible). A pass takes the traces whose last span falls
after the rule's cursor and at or before the horizon, keeps their traffic turns the rule's
`sample` and `where` pick and its ledger has not seen, and scores them as `score` does
(`engine.score`) in one transaction with their ledger rows and the cursor's advance: after
a crash a pass is committed whole or not at all, so no turn is skipped or scored twice. A
trace that gets a span after its turn was scored comes back with its new last span, and
the ledger's key keeps its turn from being scored again by the same rule version.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

import duckdb

from tracegrade.errors import ConfigError, DatabaseError
from tracegrade.scoring.engine import score
from tracegrade.scoring.judging.settings import JudgeSettings, Stop
from tracegrade.scoring.metrics import MetricSpec
from tracegrade.scoring.rules import Rule
from tracegrade.scoring.selected import drop_selected, select_traces
from tracegrade.scoring.selection import Selection
from tracegrade.store.archive_location import hot_spans
from tracegrade.store.readonly import check_condition, guarded_rows

MAX_TRACES_PER_PASS = 5000
"""A pass's traces; with more waiting, the next pass takes the rest (its cursor moved)."""
BUDGET_SPENT = "the daily judge budget is spent"


@dataclass(frozen=True)
class DaySpend:
    """What a rule's judges spent today (UTC), from the usage of its committed scorings."""

    calls: int
    usd: float

    def left(self, rule: Rule) -> tuple[float | None, int | None]:
        budget = rule.budget
        usd = None if budget.usd_per_day is None else max(0.0, budget.usd_per_day - self.usd)
        calls = None if budget.calls_per_day is None else max(0, budget.calls_per_day - self.calls)
        return usd, calls


@dataclass
class PassResult:
    rule: str
    traces: int = 0
    turns: int = 0
    scoring_id: str | None = None
    unjudged: int = 0
    budget_spent: bool = False
    lags_s: list[float] = field(default_factory=list)
    """Per turn scored: from its last span stored to its scores committed."""


def activate(connection: duckdb.DuckDBPyConnection, rule: Rule) -> None:
    """Record this rule version, its cursor at now (or, backfilling, before every span),
    unless a server ran it before: then its cursor is where that one left it."""
    start = "make_timestamptz(0)" if rule.backfill else "now()"
    connection.execute(
        "INSERT OR IGNORE INTO online_rules "  # noqa: S608 — `start` is one of two constants
        "(rule, rule_version, definition, cursor_at, backfill) "
        f"VALUES (?, ?, ?, {start}, ?)",
        [rule.name, rule.version, json.dumps(rule.definition), rule.backfill],
    )


def check_where(connection: duckdb.DuckDBPyConnection, rule: Rule) -> None:
    """Bind the rule's `where` against the `turns` view (no row is read): a misspelt column
    or function stops serve at start rather than failing every pass."""
    if rule.where is None:
        return
    query = f"SELECT turn_id FROM turns WHERE {check_condition(rule.where, 'turns')} LIMIT 0"  # noqa: S608 — the condition passed the guard; the whole query passes it again
    try:
        guarded_rows(connection, query)
    except DatabaseError as exc:
        raise ConfigError(f"rule '{rule.name}': where {rule.where!r}: {exc}") from None


def horizon_us(connection: duckdb.DuckDBPyConnection, quiet_s: float) -> int:
    """Now less the quiet period, in epoch microseconds (call it under the commit lock)."""
    ((now,),) = connection.execute("SELECT epoch_us(now())").fetchall()
    return int(now) - int(quiet_s * 1e6)


def score_pass(
    connection: duckdb.DuckDBPyConnection,
    rule: Rule,
    horizon: int,
    specs: dict[str, MetricSpec],
    judging: JudgeSettings,
    *,
    stop: Stop | None = None,
) -> PassResult:
    """Score the turns of `rule` completed after its cursor and by `horizon`."""
    result = PassResult(rule.name)
    traces, cursor = _completed_traces(connection, rule, horizon)
    result.traces = len(traces)
    if cursor is None:
        return result
    turns = _picked_turns(connection, rule, list(traces)) if traces else []
    connection.execute("BEGIN TRANSACTION")
    try:
        if turns:
            _score_turns(connection, rule, turns, traces, specs, judging, stop, result)
        connection.execute(
            "UPDATE online_rules SET cursor_at = make_timestamptz(?) "
            "WHERE rule = ? AND rule_version = ?",
            [cursor, rule.name, rule.version],
        )
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")
    committed = time.time()
    result.lags_s = [committed - traces[t.split("-", 1)[0]] / 1e6 for t in turns]
    return result


def day_spend(connection: duckdb.DuckDBPyConnection, rule: str) -> DaySpend:
    """Judge calls and cost of this rule's scorings committed today (UTC). Calls paid for
    by a scoring a crash rolled back are not counted: the next pass reuses their answers."""
    ((calls, usd),) = connection.execute(
        "SELECT coalesce(sum(u.calls), 0), coalesce(sum(u.cost_usd), 0) "
        "FROM judge_usage u JOIN scorings s USING (scoring_id) "
        "WHERE s.selection->>'rule' = ? "
        "AND s.scored_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'",
        [rule],
    ).fetchall()
    return DaySpend(int(calls), float(usd))


def _completed_traces(
    connection: duckdb.DuckDBPyConnection, rule: Rule, horizon: int
) -> tuple[dict[str, int], int | None]:
    """The traces completed after the cursor and by `horizon` (at most about
    MAX_TRACES_PER_PASS, every trace of the last instant taken: spans committed together
    share it), each with its last span's epoch microseconds; and the new cursor (None: no
    trace's last span fell in the window, the cursor stays)."""
    rows = connection.execute(
        f"""
        WITH cursor AS (
            SELECT cursor_at FROM online_rules WHERE rule = ? AND rule_version = ?
        ), done AS (
            SELECT trace_id, epoch_us(max(ingested_at)) AS done_us
            FROM {hot_spans(connection)}
            WHERE ingested_at > (SELECT cursor_at FROM cursor)
            GROUP BY trace_id
            HAVING max(ingested_at) <= make_timestamptz(?)
        ), last AS (
            SELECT max(done_us) AS until_us FROM (
                SELECT done_us FROM done ORDER BY done_us LIMIT {MAX_TRACES_PER_PASS}
            )
        ), taken AS (
            SELECT * FROM done WHERE done_us <= (SELECT until_us FROM last)
        ), members AS (
            SELECT trace_id, span_id, parent_span_id, kind, start_ns, end_ns
            FROM {hot_spans(connection)} WHERE trace_id IN (SELECT trace_id FROM taken)
        ), bounds AS (
            SELECT trace_id, min(start_ns) AS first_ns, max(end_ns) AS last_ns,
                   bool_or(parent_span_id IS NULL) AS has_root
            FROM members GROUP BY trace_id
        ), local_root AS (
            -- A trace continuing a caller's context (its root's parent was never sent here)
            -- is rooted at a server or consumer span. A span of another kind whose parent is
            -- missing is taken for a trace still arriving: ADK's are internal.
            SELECT DISTINCT m.trace_id FROM members m JOIN bounds b USING (trace_id)
            WHERE m.kind IN ('SERVER', 'CONSUMER')
              AND m.start_ns = b.first_ns AND m.end_ns = b.last_ns
              AND NOT EXISTS (SELECT 1 FROM members p
                              WHERE p.trace_id = m.trace_id AND p.span_id = m.parent_span_id)
        )
        SELECT t.trace_id, t.done_us,
               b.has_root OR t.trace_id IN (SELECT trace_id FROM local_root) AS complete
        FROM taken t JOIN bounds b USING (trace_id)
        """,  # noqa: S608 — the table's name and a constant
        [rule.name, rule.version, horizon],
    ).fetchall()
    cursor = max((int(done) for _, done, _ in rows), default=None)
    # A trace without its root yet is passed over: its root's arrival brings it back.
    return {str(trace): int(done) for trace, done, complete in rows if complete}, cursor


def _picked_turns(
    connection: duckdb.DuckDBPyConnection, rule: Rule, traces: list[str]
) -> list[str]:
    """The traffic turns of `traces` that the rule's sample and `where` pick, which this
    rule version has not scored yet."""
    selection = Selection(sample=rule.sample)
    sampled, params = selection.predicate()  # run_id IS NULL AND the sample
    condition = check_condition(rule.where, "turns") if rule.where else "TRUE"
    # Only the sampled traces are normalised: the sample is decided by the trace id alone.
    keep, keep_params = "trace_id IN (SELECT unnest(?::VARCHAR[]))", [traces]
    by_id = selection.trace_predicate()
    if by_id is not None:
        keep, keep_params = f"{keep} AND {by_id[0]}", keep_params + by_id[1]
    select_traces(connection, (keep, keep_params))
    try:
        query = f"SELECT turn_id FROM scoring_turns AS turns WHERE {sampled} AND {condition}"  # noqa: S608 — the condition passed the guard; the whole query passes it again
        picked = [str(row[0]) for row in guarded_rows(connection, query, params)]
    except DatabaseError as exc:
        raise ConfigError(f"rule '{rule.name}': where {rule.where!r}: {exc}") from None
    finally:
        drop_selected(connection)
    if not picked:
        return []
    seen = connection.execute(
        "SELECT turn_id FROM online_scored WHERE rule = ? AND rule_version = ? "
        "AND turn_id IN (SELECT unnest(?::VARCHAR[]))",
        [rule.name, rule.version, picked],
    ).fetchall()
    done = {row[0] for row in seen}
    return sorted(t for t in picked if t not in done)


def _score_turns(
    connection: duckdb.DuckDBPyConnection,
    rule: Rule,
    turns: list[str],
    traces: dict[str, int],
    specs: dict[str, MetricSpec],
    judging: JudgeSettings,
    stop: Stop | None,
    result: PassResult,
) -> None:
    """Score `turns` by the rule, inside the caller's transaction, with their ledger rows."""
    selection = Selection(where=rule.where or "TRUE", sample=rule.sample, turn_ids=tuple(turns))
    scored = score(connection, selection, rule.config, specs, judging, stop=stop)
    connection.execute(
        "UPDATE scorings SET selection = ? WHERE scoring_id = ?",
        [json.dumps(_selection(rule, traces)), scored.scoring_id],
    )
    connection.executemany(
        "INSERT INTO online_scored (rule, rule_version, turn_id, scoring_id, completed_at) "
        "VALUES (?, ?, ?, ?, make_timestamptz(?))",
        [
            [rule.name, rule.version, turn, scored.scoring_id, traces[turn.split("-", 1)[0]]]
            for turn in turns
        ],
    )
    ((unjudged,),) = connection.execute(
        "SELECT coalesce(sum(unjudged), 0) FROM judge_usage WHERE scoring_id = ?",
        [scored.scoring_id],
    ).fetchall()
    result.turns, result.scoring_id, result.unjudged = len(turns), scored.scoring_id, unjudged


def _selection(rule: Rule, traces: dict[str, int]) -> dict[str, Any]:
    """The scoring's `selection`: the rule, and the completion times of the turns it took."""
    return {
        "run_id": None,
        "since_s": None,
        "sample": rule.sample,
        "where": rule.where,
        "rule": rule.name,
        "rule_version": rule.version,
        "completed_from_us": min(traces.values()),
        "completed_until_us": max(traces.values()),
    }
