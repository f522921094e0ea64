"""Judge answers in and out of DuckDB: the cache (`judgements`), the answers one scoring
uses (`scored_judgements`, a temporary table its scorers read) and its `judge_usage`."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import duckdb
import numpy as np

from tracegrade.scoring.judging.calls import Answer, CacheKey

_STORED = (
    "judgement_id", "scoring_id", "metric", "turn_id", "judge_model", "model", "prompt_sha",
    "config_sha", "sample", "step", "prompt", "response", "outcome", "score", "verdicts",
    "rationale", "input_tokens", "output_tokens", "reasoning_tokens", "cost_usd", "latency_ms",
    "attempts", "error",
)  # fmt: skip

_SCORED = (
    "metric", "turn_id", "judgement_id", "judge_model", "sample", "step", "outcome", "cached",
    "response", "score", "verdicts", "rationale", "error", "input_tokens", "output_tokens",
    "cost_usd", "latency_ms",
)  # fmt: skip


def load_cache(
    connection: duckdb.DuckDBPyConnection, metrics: Sequence[str]
) -> dict[CacheKey, Answer]:
    """The latest answered judgement of each key, for the turns in `judged_turns`."""
    rows = connection.execute(
        f"""
        SELECT {", ".join(_STORED)} FROM judgements
        WHERE outcome = 'answered' AND list_contains(?, metric)
          AND turn_id IN (SELECT turn_id FROM judged_turns)
        QUALIFY row_number() OVER (
            PARTITION BY metric, turn_id, judge_model, prompt_sha, config_sha, sample
            ORDER BY judged_at DESC, judgement_id) = 1
        """,  # noqa: S608 — the column names are constants; values are parameters
        [list(metrics)],
    ).fetchall()
    cache = {}
    for row in rows:
        values = dict(zip(_STORED, row, strict=True))
        del values["scoring_id"]
        values["verdicts"] = json.loads(values["verdicts"]) if values["verdicts"] else None
        answer = Answer(**values, cached=True)
        cache[answer.key] = answer
    return cache


class Sink:
    """The new calls of a scoring, into `judgements` a batch at a time: an insert costs
    ~15 ms whatever its size (measured), and it blocks the calls' event loop."""

    BATCH = 500

    def __init__(self, connection: duckdb.DuckDBPyConnection, scoring_id: str) -> None:
        # A cursor of its own, outside the scoring's transaction: answers paid for stay when
        # the scoring is stopped and rolled back (serve's time limit), for the next scoring.
        self._connection = connection.cursor()
        self._scoring_id = scoring_id
        self._pending: list[Answer] = []

    def add(self, answers: Iterable[Answer]) -> None:
        self._pending += [a for a in answers if a.new]
        if len(self._pending) >= self.BATCH:
            self.flush()

    def flush(self) -> None:
        rows, self._pending = self._pending, []
        if rows:
            columns = {name: [_value(a, name, self._scoring_id) for a in rows] for name in _STORED}
            _insert(self._connection, "judgements", columns)

    def close(self) -> None:
        self.flush()
        self._connection.close()


def write_scored(connection: duckdb.DuckDBPyConnection, answers: Sequence[Answer]) -> None:
    """`scored_judgements` (made with the other inputs, queries/scoring/01_inputs.sql):
    what this scoring's judged metrics read."""
    connection.execute("DELETE FROM scored_judgements")
    if answers:
        _insert(connection, "scored_judgements",
                {name: [_value(a, name, "") for a in answers] for name in _SCORED})  # fmt: skip


def write_usage(
    connection: duckdb.DuckDBPyConnection, scoring_id: str, budget: float | None
) -> None:
    """One `judge_usage` row per judged metric of the scoring."""
    connection.execute(
        """
        INSERT INTO judge_usage
        SELECT ?, metric, any_value(judge_model),
               count(*) FILTER (outcome = 'answered')::INTEGER,
               count(*) FILTER (cached)::INTEGER,
               count(*) FILTER (NOT cached AND outcome IN ('answered', 'failed'))::INTEGER,
               count(*) FILTER (outcome = 'failed')::INTEGER,
               count(*) FILTER (outcome = 'unjudged')::INTEGER,
               sum(input_tokens) FILTER (NOT cached),
               sum(output_tokens) FILTER (NOT cached),
               CASE WHEN bool_and(cost_usd IS NOT NULL OR cached OR outcome <> 'answered')
                    THEN coalesce(sum(cost_usd) FILTER (NOT cached), 0) END,
               ?
        FROM scored_judgements
        GROUP BY metric
        """,
        [scoring_id, budget],
    )


def _value(answer: Answer, name: str, scoring_id: str) -> Any:
    if name == "scoring_id":
        return scoring_id
    value = getattr(answer, name)
    if name == "verdicts":
        return None if value is None else json.dumps(value, ensure_ascii=False)
    return value


def _insert(
    connection: duckdb.DuckDBPyConnection, table: str, columns: dict[str, list[Any]]
) -> None:
    arrays = {name: np.array(values, dtype=object) for name, values in columns.items()}
    names = ", ".join(arrays)
    connection.register("_tg_judge_rows", arrays)
    try:
        connection.execute(f"INSERT INTO {table} ({names}) SELECT {names} FROM _tg_judge_rows")  # noqa: S608 — this module's table and column constants
    finally:
        connection.unregister("_tg_judge_rows")
