"""Every case of google-adk's own evaluator unit tests, and 400 generated cases, score in
tracegrade's SQL exactly as ADK's evaluators score them: per turn, per case, and the
verdict. Through the Python API: the scorer inputs filled directly (`load_inputs`), which
keep a call without arguments (None) apart from `{}` as ADK does."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import duckdb
import pytest

from tests.peer.material import PeerCase, random_cases, unit_cases
from tests.peer.replay import same_scores
from tests.support.adk_oracle import RESPONSE, TRAJECTORY, AdkScores, adk_scores, invocation
from tests.support.tiers import costly
from tracegrade.scoring import available_metrics, parse_config
from tracegrade.scoring.engine import score_loaded
from tracegrade.scoring.inputs import load_inputs
from tracegrade.store import connect
from tracegrade.store.canonical import canonical_args

SPECS = available_metrics()
RANDOM_CRITERIA = [
    (TRAJECTORY, {"threshold": 1.0, "match_type": match_type, "ignore_args": ignore})
    for match_type in ("EXACT", "IN_ORDER", "ANY_ORDER")
    for ignore in (False, True)
] + [(RESPONSE, {"threshold": 0.8})]

Ours = dict[str, tuple[list[float | None], float | None, bool]]


def _tables(cases: Sequence[PeerCase]) -> dict[str, dict[str, list[Any]]]:
    tables: dict[str, dict[str, list[Any]]] = {
        "scored_turns": {k: [] for k in ("turn_id", "run_id", "eval_set_id", "case_id", "repeat",
                                         "turn_index", "is_error", "final_text", "has_expected")},
        "scored_expected": {"turn_id": [], "final_text": []},
        "scored_calls": {k: [] for k in ("turn_id", "seq", "name", "args", "args_captured",
                                         "parallel_group")},
        "scored_expected_calls": {k: [] for k in ("turn_id", "seq", "name", "args")},
    }  # fmt: skip
    for case in cases:
        for index, turn in enumerate(case.turns):
            turn_id = f"{case.case_id}#{index}"
            row = (turn_id, "peer", "peer", case.case_id, 0, index, False, turn.actual.final, True)
            _append(tables["scored_turns"], row)
            _append(tables["scored_expected"], (turn_id, turn.expected.final))
            for seq, call in enumerate(turn.actual.calls, start=1):
                args = canonical_args(call.get("args"))
                _append(tables["scored_calls"], (turn_id, seq, call["name"], args, True, f"g{seq}"))
            for seq, call in enumerate(turn.expected.calls, start=1):
                args = canonical_args(call.get("args"))
                _append(tables["scored_expected_calls"], (turn_id, seq, call["name"], args))
    return tables


def _append(table: dict[str, list[Any]], row: Sequence[Any]) -> None:
    for column, value in zip(table, row, strict=True):
        table[column].append(value)


def score_with_tracegrade(
    connection: duckdb.DuckDBPyConnection,
    cases: Sequence[PeerCase],
    metric: str,
    criterion: dict[str, Any],
) -> Ours:
    """Per case: turn scores, the case score and whether the case passed the metric."""
    load_inputs(connection, _tables(cases))
    config = parse_config({"criteria": {metric: criterion}}, SPECS)
    scoring = score_loaded(connection, config, SPECS).scoring_id
    rows = connection.execute(
        "SELECT case_id, level, turn_index, score, status FROM scores "
        "WHERE scoring_id = ? AND metric = ? AND level <> 'run' "
        "ORDER BY case_id, level, turn_index",
        [scoring, metric],
    ).fetchall()
    ours: Ours = {case.case_id: ([], None, False) for case in cases}
    for case_id, level, _, value, status in rows:
        turns, total, passed = ours[case_id]
        if level == "turn":
            ours[case_id] = ([*turns, value], total, passed)
        elif level == "case":
            ours[case_id] = (turns, value, status == "passed")
    return ours


def score_with_adk(case: PeerCase, metric: str, criterion: dict[str, Any]) -> AdkScores:
    actual = [invocation(t.actual.calls, t.actual.final) for t in case.turns]
    expected = [invocation(t.expected.calls, t.expected.final) for t in case.turns]
    return adk_scores(metric, criterion, actual, expected)


def assert_same(
    ours: Ours, cases: Sequence[PeerCase], metric: str, criterion: dict[str, Any]
) -> set[float | None]:
    """Every case scores as in ADK; ADK's case scores are returned (to show they vary)."""
    differ = {}
    seen: set[float | None] = set()
    for case in cases:
        adk = score_with_adk(case, metric, criterion)
        mine = ours[case.case_id]
        theirs = (adk.turns, adk.case, adk.passed)
        seen.add(adk.case)
        if not same_scores(mine, theirs):
            differ[case.case_id] = {"ours": mine, "adk": theirs}
    assert differ == {}
    return seen


@pytest.fixture(scope="module")
def connection() -> duckdb.DuckDBPyConnection:
    return connect(":memory:")


@pytest.mark.parametrize(("metric", "criterion"), RANDOM_CRITERIA, ids=lambda v: json.dumps(v))
@costly
def test_generated_cases_score_as_in_adk(
    connection: duckdb.DuckDBPyConnection, metric: str, criterion: dict[str, Any]
) -> None:
    cases = random_cases()
    assert_same(
        score_with_tracegrade(connection, cases, metric, criterion), cases, metric, criterion
    )


def _unit_groups() -> list[tuple[str, str]]:
    return sorted({(c.metric or "", json.dumps(c.criterion, sort_keys=True)) for c in unit_cases()})


@pytest.mark.parametrize(("metric", "criterion"), _unit_groups())
def test_adks_own_unit_cases_score_as_in_adk(
    connection: duckdb.DuckDBPyConnection, metric: str, criterion: str
) -> None:
    given = json.loads(criterion)
    cases = [c for c in unit_cases() if (c.metric, c.criterion) == (metric, given)]
    assert_same(score_with_tracegrade(connection, cases, metric, given), cases, metric, given)
