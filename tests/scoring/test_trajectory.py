"""tool_trajectory_avg_score: the SQL against ADK's TrajectoryEvaluator and our reference."""

from __future__ import annotations

import json
from typing import Any

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.scoring.adk_evaluators import adk_trajectory_scores
from tests.scoring.reference import Call, trajectory_score
from tests.scoring.scorer_inputs import details, load_trajectories, scores
from tests.support.tiers import costly
from tracegrade.store import connect
from tracegrade.store.canonical import canonical_args

ADK_TYPES = ("EXACT", "IN_ORDER", "ANY_ORDER")
ALL_TYPES = (*ADK_TYPES, "SUBSET", "SUPERSET", "PRECISION", "RECALL")


def c(name: str, **args: Any) -> Call:
    return Call(name, args)


# reference/adk-eval.md's observed table: actual, expected, and ADK's EXACT / IN_ORDER /
# ANY_ORDER / EXACT with ignore_args. The test also asks ADK itself.
OBSERVED = [
    ([c("a"), c("b"), c("c")], [c("a"), c("b"), c("c")], (1, 1, 1, 1)),
    ([c("b"), c("a"), c("c")], [c("a"), c("b"), c("c")], (0, 0, 1, 0)),
    ([c("a"), c("x"), c("b"), c("c")], [c("a"), c("b"), c("c")], (0, 1, 1, 0)),
    ([c("a"), c("c")], [c("a"), c("b"), c("c")], (0, 0, 0, 0)),
    ([c("a"), c("a"), c("b")], [c("a"), c("b")], (0, 1, 1, 0)),
    ([c("a"), c("b")], [c("a"), c("a"), c("b")], (0, 0, 0, 0)),
    ([], [c("a")], (0, 0, 0, 0)),
    ([c("a")], [], (0, 1, 1, 0)),
    ([], [], (1, 1, 1, 1)),
    ([c("a", x=1)], [c("a", x=2)], (0, 0, 0, 1)),
    ([c("a", x=3)], [c("a", x=3.0)], (1, 1, 1, 1)),
    ([c("a", x=True)], [c("a", x=1)], (1, 1, 1, 1)),
    ([c("a", x="3")], [c("a", x=3)], (0, 0, 0, 1)),
    ([c("a", d={"p": 1, "q": 2})], [c("a", d={"q": 2, "p": 1})], (1, 1, 1, 1)),
    ([c("a", l=[1, 2])], [c("a", l=[2, 1])], (0, 0, 0, 1)),
    ([c("a", x=1, z=0)], [c("a", x=1)], (0, 0, 0, 1)),
    ([c("c", args={})], [Call("c", None)], (0, 0, 0, 1)),
]


# Every test and hypothesis example reuses it (a new one makes every view, ~1 s):
# load_inputs empties the tables.
_SHARED = connect(":memory:")


@pytest.fixture
def connection() -> duckdb.DuckDBPyConnection:
    return _SHARED


def _as_adk(calls: list[Call]) -> list[tuple[str, dict[str, Any] | None]]:
    return [(call.name, call.args) for call in calls]


@pytest.mark.parametrize(
    ("column", "match_type", "ignore_args"),
    [
        (0, "EXACT", False),
        (1, "IN_ORDER", False),
        (2, "ANY_ORDER", False),
        (3, "EXACT", True),
    ],
)
def test_observed_table_equals_adk(
    connection: duckdb.DuckDBPyConnection, column: int, match_type: str, ignore_args: bool
) -> None:
    pairs = [(actual, expected) for actual, expected, _ in OBSERVED]
    turn_ids = load_trajectories(connection, pairs)
    ours = scores(
        connection,
        "tool_trajectory_avg_score",
        match_type=match_type,
        args_match="IGNORE" if ignore_args else "EXACT",
    )
    adk = adk_trajectory_scores(
        [(_as_adk(a), _as_adk(e)) for a, e in pairs], match_type, ignore_args
    )
    assert [ours[t] for t in turn_ids] == adk
    assert adk == [float(row[2][column]) for row in OBSERVED]


NAMES = st.sampled_from(["get", "set", "find"])
SCALARS = st.one_of(
    st.integers(-3, 3),
    st.sampled_from([0.0, 1.0, 2.0, 2.5, -1.5]),
    st.booleans(),
    st.sampled_from(["1", "a", "é"]),
    st.none(),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=2), st.dictionaries(st.sampled_from(["p", "q"]), inner, max_size=2)
    ),
    max_leaves=4,
)
ARGS = st.one_of(st.none(), st.dictionaries(st.sampled_from(["x", "y", "z"]), VALUES, max_size=3))
CALLS = st.lists(st.builds(Call, NAMES, ARGS), max_size=5)
TURNS = st.lists(st.tuples(CALLS, CALLS), min_size=1, max_size=40)


# 20 examples of up to 40 turns: the same parity is checked on 400 generated cases for every
# match type, with and without args (tests/peer/test_scoring.py), in the fast tier too.
@settings(max_examples=20, deadline=None)
@given(turns=TURNS, match_type=st.sampled_from(ADK_TYPES), ignore_args=st.booleans())
@costly
def test_sql_equals_adk_on_random_trajectories(
    turns: list[tuple[list[Call], list[Call]]], match_type: str, ignore_args: bool
) -> None:
    # ADK's actual calls always carry args (a dict); only expected ones may lack them.
    turns = [([Call(a.name, a.args or {}) for a in actual], expected) for actual, expected in turns]
    turn_ids = load_trajectories(_SHARED, turns)
    ours = scores(
        _SHARED,
        "tool_trajectory_avg_score",
        match_type=match_type,
        args_match="IGNORE" if ignore_args else "EXACT",
    )
    adk = adk_trajectory_scores(
        [(_as_adk(a), _as_adk(e)) for a, e in turns], match_type, ignore_args
    )
    assert [ours[t] for t in turn_ids] == adk


# 30 examples of up to 40 turns: the scorer's comparison itself (tg_traj_score) is checked
# against the reference per turn below, on 200 examples.
@settings(max_examples=30, deadline=None)
@given(
    turns=TURNS,
    match_type=st.sampled_from(ALL_TYPES),
    default_mode=st.sampled_from(["EXACT", "SUBSET", "IGNORE"]),
    per_tool=st.dictionaries(NAMES, st.sampled_from(["EXACT", "SUBSET", "IGNORE"]), max_size=2),
)
@costly
def test_sql_equals_reference_for_every_mode(
    turns: list[tuple[list[Call], list[Call]]],
    match_type: str,
    default_mode: str,
    per_tool: dict[str, str],
) -> None:
    turn_ids = load_trajectories(_SHARED, turns)
    ours = scores(
        _SHARED,
        "tool_trajectory_avg_score",
        match_type=match_type,
        args_match=default_mode,
        args_match_per_tool=per_tool,
    )
    expected = [trajectory_score(a, e, match_type, per_tool, default_mode) for a, e in turns]
    assert [ours[t] for t in turn_ids] == pytest.approx(expected)


_STRUCTS = '\'[{"name": "VARCHAR", "args": "VARCHAR", "mode": "VARCHAR"}]\''


@settings(max_examples=200, deadline=None)  # one query an example: cheap
@given(
    turn=st.tuples(CALLS, CALLS),
    match_type=st.sampled_from(ALL_TYPES),
    default_mode=st.sampled_from(["EXACT", "SUBSET", "IGNORE"]),
    per_tool=st.dictionaries(NAMES, st.sampled_from(["EXACT", "SUBSET", "IGNORE"]), max_size=2),
)
@costly
def test_traj_score_macro_for_own_metrics_equals_reference(
    turn: tuple[list[Call], list[Call]],
    match_type: str,
    default_mode: str,
    per_tool: dict[str, str],
) -> None:
    def structs(calls: list[Call]) -> str:
        return json.dumps(
            [
                {
                    "name": call.name,
                    "args": canonical_args(call.args),
                    "mode": per_tool.get(call.name, default_mode),
                }
                for call in calls
            ]
        )

    actual, expected = turn
    (ours,) = _SHARED.execute(
        f"SELECT tg_traj_score(from_json(?, {_STRUCTS}), from_json(?, {_STRUCTS}), ?)",
        [structs(actual), structs(expected), match_type],
    ).fetchone() or (None,)
    reference = trajectory_score(actual, expected, match_type, per_tool, default_mode)
    assert ours == pytest.approx(reference)


def test_parallel_calls_may_match_as_a_group(connection: duckdb.DuckDBPyConnection) -> None:
    expected = [c("get_weather"), c("get_time"), c("convert")]
    actual = [c("get_time"), c("get_weather"), c("convert")]
    turn_ids = load_trajectories(connection, [(actual, expected)], groups=[[1, 1, 2]])
    strict = scores(connection, "tool_trajectory_avg_score", match_type="IN_ORDER")
    grouped = scores(
        connection,
        "tool_trajectory_avg_score",
        match_type="IN_ORDER",
        unordered_parallel_calls=True,
    )
    assert (strict[turn_ids[0]], grouped[turn_ids[0]]) == (0.0, 1.0)


def test_calls_in_different_groups_keep_their_order(connection: duckdb.DuckDBPyConnection) -> None:
    expected = [c("get_weather"), c("get_time")]
    actual = [c("get_time"), c("get_weather")]
    turn_ids = load_trajectories(connection, [(actual, expected)], groups=[[1, 2]])
    grouped = scores(
        connection, "tool_trajectory_avg_score", match_type="EXACT", unordered_parallel_calls=True
    )
    assert grouped[turn_ids[0]] == 0.0


def test_uncaptured_arguments_are_not_evaluated(connection: duckdb.DuckDBPyConnection) -> None:
    from tracegrade.scoring.inputs import load_inputs

    load_inputs(
        connection,
        {
            "scored_turns": {"turn_id": ["t1"], "is_error": [False]},
            "scored_expected": {"turn_id": ["t1"]},
            "scored_calls": {
                "turn_id": ["t1"],
                "seq": [1],
                "name": ["get"],
                "args": [None],
                "args_captured": [False],
                "parallel_group": ["g"],
            },
            "scored_expected_calls": {
                "turn_id": ["t1"],
                "seq": [1],
                "name": ["get"],
                "args": ['{"x":1}'],
            },
        },
    )
    assert scores(connection, "tool_trajectory_avg_score") == {"t1": None}
    assert "not captured" in details(connection, "tool_trajectory_avg_score")["t1"]["reason"]
    assert scores(connection, "tool_trajectory_avg_score", args_match="IGNORE") == {"t1": 1.0}
