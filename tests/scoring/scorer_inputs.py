"""Loading synthetic turns into the scorers' input tables, and running one shipped metric."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import duckdb

from tests.scoring.reference import Call
from tracegrade.scoring.engine import run_metric
from tracegrade.scoring.inputs import load_inputs
from tracegrade.scoring.metrics import available_metrics

SPECS = available_metrics()


def load_trajectories(
    connection: duckdb.DuckDBPyConnection,
    pairs: Sequence[tuple[Sequence[Call], Sequence[Call]]],
    groups: Sequence[Sequence[int]] | None = None,
) -> list[str]:
    """One turn per (actual, expected) pair; `groups[i][j]` is call j's parallel group."""
    turn_ids = [f"t{i:05d}" for i in range(len(pairs))]
    calls: dict[str, list[Any]] = {
        k: [] for k in ("turn_id", "seq", "name", "args", "args_captured", "parallel_group")
    }
    expected: dict[str, list[Any]] = {k: [] for k in ("turn_id", "seq", "name", "args")}
    for i, (turn_id, (actual, wanted)) in enumerate(zip(turn_ids, pairs, strict=True)):
        for seq, call in enumerate(actual, start=1):
            group = groups[i][seq - 1] if groups else seq
            _append(calls, turn_id, seq, call, args_captured=True, parallel_group=f"g{group}")
        for seq, call in enumerate(wanted, start=1):
            _append(expected, turn_id, seq, call)
    load_inputs(
        connection,
        {
            "scored_turns": {"turn_id": turn_ids, "is_error": [False] * len(turn_ids)},
            "scored_expected": {"turn_id": turn_ids},
            "scored_calls": calls,
            "scored_expected_calls": expected,
        },
    )
    return turn_ids


def columns(names: Sequence[str], rows: Iterable[Sequence[Any]]) -> dict[str, list[Any]]:
    """`rows` as the column lists `load_inputs` takes."""
    table: dict[str, list[Any]] = {name: [] for name in names}
    for row in rows:
        for name, value in zip(names, row, strict=True):
            table[name].append(value)
    return table


def _append(table: dict[str, list[Any]], turn_id: str, seq: int, call: Call, **extra: Any) -> None:
    from tracegrade.store.canonical import canonical_args

    table["turn_id"].append(turn_id)
    table["seq"].append(seq)
    table["name"].append(call.name)
    table["args"].append(canonical_args(call.args))
    for key, value in extra.items():
        table[key].append(value)


def scores(
    connection: duckdb.DuckDBPyConnection, metric: str, **options: Any
) -> dict[str, float | None]:
    return {turn: score for turn, score, _ in run_metric(connection, SPECS[metric], options)}


def details(connection: duckdb.DuckDBPyConnection, metric: str, **options: Any) -> dict[str, Any]:
    return {
        turn: json.loads(d) if d else None
        for turn, _, d in run_metric(connection, SPECS[metric], options)
    }
