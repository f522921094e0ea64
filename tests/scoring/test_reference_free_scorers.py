"""The reference-free scorers (efficiency, cost, errors, duration) against their references."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.scoring.reference import (
    Call,
    consecutive_repeats,
    cost_usd,
    duration_breakdown,
    repeated_calls,
    tool_efficiency,
)
from tests.scoring.scorer_inputs import SPECS, columns, details, load_trajectories, scores
from tests.support.tiers import costly
from tracegrade.scoring.engine import run_metric
from tracegrade.scoring.inputs import load_inputs
from tracegrade.store import connect
from tracegrade.store.canonical import canonical_args

_SHARED = connect(":memory:")

CALLS = st.lists(
    st.builds(
        Call,
        st.sampled_from(["get", "set"]),
        st.sampled_from([{}, {"x": 1}, {"x": 1.0}, {"x": "1"}]),
    ),
    max_size=6,
)


@settings(max_examples=40, deadline=None)
@given(st.lists(CALLS, min_size=1, max_size=30))
@costly
def test_tool_efficiency_equals_reference(turns: list[list[Call]]) -> None:
    turn_ids = load_trajectories(_SHARED, [(calls, []) for calls in turns])
    ours = scores(_SHARED, "tool_efficiency")
    info = details(_SHARED, "tool_efficiency")
    for turn_id, calls in zip(turn_ids, turns, strict=True):
        assert ours.get(turn_id) == tool_efficiency(calls)
        if calls:
            assert info[turn_id]["consecutive_repeats"] == consecutive_repeats(calls)
            repeated = {
                (r["name"], canonical_args(r["args"])): r["times"]
                for r in info[turn_id]["repeated"] or []
            }
            assert repeated == repeated_calls(calls)


PRICES = {
    "m": {"input": 1.0, "output": 2.0},
    "m-pro": {"input": 3.0, "cached_input": 0.5, "output": 8.0, "reasoning": 9.0},
}
LLM_CALL = st.fixed_dictionaries(
    {
        "model": st.sampled_from(["m", "m-pro", "m-pro-001", "vendor/m", "unpriced", None]),
        "input": st.one_of(st.none(), st.integers(50, 500)),
        "output": st.integers(0, 100),
        "reasoning": st.one_of(st.none(), st.integers(0, 20)),
        "cached": st.one_of(st.none(), st.integers(0, 40)),
    }
)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(LLM_CALL, min_size=1, max_size=4), min_size=1, max_size=20))
@costly
def test_cost_equals_reference(turns: list[list[dict[str, Any]]]) -> None:
    rows: dict[str, list[Any]] = {
        k: []
        for k in (
            "turn_id",
            "seq",
            "model",
            "input_tokens",
            "output_tokens",
            "reasoning_tokens",
            "cached_tokens",
            "is_error",
            "in_agent_tool",
        )
    }
    for i, calls in enumerate(turns):
        for seq, call in enumerate(calls, start=1):
            for key, value in [
                ("turn_id", f"t{i:03d}"),
                ("seq", seq),
                ("model", call["model"]),
                ("input_tokens", call["input"]),
                ("output_tokens", call["output"]),
                ("reasoning_tokens", call["reasoning"]),
                ("cached_tokens", call["cached"]),
                ("is_error", False),
                ("in_agent_tool", False),
            ]:
                rows[key].append(value)
    load_inputs(_SHARED, {"scored_llm_calls": rows})
    ours = {t: s for t, s, _ in run_metric(_SHARED, SPECS["cost_usd"], prices=PRICES)}
    for i, calls in enumerate(turns):
        expected = cost_usd(calls, {**PRICES})
        actual = ours[f"t{i:03d}"]
        assert (actual is None) == (expected is None)
        if expected is not None:
            assert actual is not None
            assert abs(actual - expected) < 1e-12


def test_cost_says_which_models_are_unpriced() -> None:
    load_inputs(
        _SHARED,
        {
            "scored_llm_calls": {
                "turn_id": ["t1", "t1"],
                "seq": [1, 2],
                "model": ["gemini-2.5-flash", "my-model"],
                "input_tokens": [100, 100],
                "output_tokens": [10, 10],
                "is_error": [False, False],
                "in_agent_tool": [False, False],
            }
        },
    )
    ((_, score, detail),) = run_metric(_SHARED, SPECS["cost_usd"])
    assert score is None
    assert detail is not None
    assert '"priced_calls":1' in detail
    assert '"unpriced_models":["my-model"]' in detail


def test_tool_error_rate_and_kinds() -> None:
    load_inputs(
        _SHARED,
        {
            "scored_calls": {
                "turn_id": ["t1", "t1", "t1", "t2"],
                "seq": [1, 2, 3, 1],
                "name": ["a", "b", "c", "a"],
                "is_error": [True, False, True, False],
                "error_kind": ["raised", None, "returned_error", None],
                "error_message": ["boom", None, "not found", None],
            },
        },
    )
    assert scores(_SHARED, "tool_error_rate") == {"t1": 2 / 3, "t2": 0.0}
    kinds = [e["kind"] for e in details(_SHARED, "tool_error_rate")["t1"]["errors"]]
    assert kinds == ["raised", "returned_error"]


def test_invocation_duration_splits_model_tool_and_framework_time() -> None:
    ms = 1_000_000
    load_inputs(
        _SHARED,
        {
            "scored_turns": {"turn_id": ["t1"], "latency_ms": [1000.0], "is_error": [False]},
            # Model calls 0-300 and 200-400 overlap (parallel branches): 400 ms of model time.
            "scored_llm_calls": {
                "turn_id": ["t1", "t1", "t1"],
                "seq": [1, 2, None],
                "start_ns": [0, 200 * ms, 550 * ms],
                "end_ns": [300 * ms, 400 * ms, 650 * ms],
                "in_agent_tool": [False, False, True],
                "is_error": [False, False, False],
            },
            # An AgentTool call 500-800 whose own model call (550-650) is model time, not tool time.
            "scored_calls": {
                "turn_id": ["t1"],
                "seq": [1],
                "name": ["helper"],
                "start_ns": [500 * ms],
                "end_ns": [800 * ms],
            },
        },
    )
    assert scores(_SHARED, "invocation_duration") == {"t1": 1.0}
    assert details(_SHARED, "invocation_duration")["t1"] == {
        "model": 0.5,
        "tool": 0.2,
        "framework": 0.3,
    }


MS = 1_000_000
INTERVAL = st.tuples(st.integers(0, 900), st.integers(0, 300)).map(
    lambda start_length: (start_length[0] * MS, (start_length[0] + start_length[1]) * MS)
)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.tuples(INTERVAL, st.booleans()), max_size=6),  # model calls, in AgentTool?
            st.lists(INTERVAL, max_size=6),  # tool calls
        ),
        min_size=1,
        max_size=10,
    )
)
@costly
def test_invocation_duration_equals_reference(
    turns: list[tuple[list[tuple[tuple[int, int], bool]], list[tuple[int, int]]]],
) -> None:
    ids = [f"t{i}" for i in range(len(turns))]
    llm = columns(
        ("turn_id", "start_ns", "end_ns", "in_agent_tool"),
        [
            (turn_id, start, end, nested)
            for turn_id, (model_calls, _) in zip(ids, turns, strict=True)
            for (start, end), nested in model_calls
        ],
    )
    tools = columns(
        ("turn_id", "seq", "name", "start_ns", "end_ns"),
        [
            (turn_id, seq, "f", start, end)
            for turn_id, (_, tool_calls) in zip(ids, turns, strict=True)
            for seq, (start, end) in enumerate(tool_calls, 1)
        ],
    )
    load_inputs(
        _SHARED,
        {
            "scored_turns": {
                "turn_id": ids,
                "latency_ms": [1000.0] * len(ids),
                "is_error": [False] * len(ids),
            },
            "scored_llm_calls": llm,
            "scored_calls": tools,
        },
    )
    ours = details(_SHARED, "invocation_duration")
    for turn_id, (model_calls, tool_calls) in zip(ids, turns, strict=True):
        model = [interval for interval, _ in model_calls]
        nested = [interval for interval, in_tool in model_calls if in_tool]
        assert ours[turn_id] == duration_breakdown(1000.0, model, tool_calls, nested)
