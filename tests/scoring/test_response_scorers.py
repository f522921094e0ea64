"""response_match_score and response_unigram_f1 as scorer files, against ADK and references."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.scoring.adk_evaluators import adk_response_scores
from tests.scoring.reference import unigram_f1
from tests.scoring.scorer_inputs import details, scores
from tests.support.tiers import costly
from tracegrade.scoring.inputs import load_inputs
from tracegrade.store import connect

_SHARED = connect(":memory:")

OBSERVED = [  # reference/adk-eval.md: actual, reference, ADK's F
    ("It is sunny in Paris.", "It is sunny in Paris.", 1.0),
    ("Sunny in Paris", "It is sunny in Paris.", 0.75),
    (
        "It is sunny in Paris, 70.7°F, and the local time is 14:00.",
        "Paris: sunny, 70.7 F, 14:00 local time.",
        0.75,
    ),
    ("The orders were cancelled", "order cancelled", 0.667),
    ("3 apples", "3.0 apples", 0.8),
    ("", "anything", 0.0),
    ("", "", 0.0),
    ("東京は晴れです", "東京は晴れ", 0.833),
    ("Café crème", "cafe creme", 0.0),
]


def _load(pairs: list[tuple[str | None, str | None]]) -> list[str]:
    turn_ids = [f"t{i:04d}" for i in range(len(pairs))]
    load_inputs(
        _SHARED,
        {
            "scored_turns": {
                "turn_id": turn_ids,
                "final_text": [a for a, _ in pairs],
                "is_error": [False] * len(pairs),
            },
            "scored_expected": {"turn_id": turn_ids, "final_text": [r for _, r in pairs]},
        },
    )
    return turn_ids


def test_observed_scores_equal_adk() -> None:
    pairs = [(a, r) for a, r, _ in OBSERVED]
    turn_ids = _load(list(pairs))
    ours = scores(_SHARED, "response_match_score")
    adk = adk_response_scores(pairs)
    assert [ours[t] for t in turn_ids] == adk
    assert [s if s is None else round(s, 3) for s in adk] == [f for _, _, f in OBSERVED]


PIECES = st.sampled_from(
    [*"abcdeé東京晴 .,:-0123456789\n", "running ", "cats ", "Paris ", "ป่า", "Café "]
)
TEXT = st.lists(PIECES, max_size=25).map("".join)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT), min_size=1, max_size=30))
@costly
def test_response_match_equals_adk_on_random_text(pairs: list[tuple[str, str]]) -> None:
    turn_ids = _load(list(pairs))
    ours = scores(_SHARED, "response_match_score")
    assert [ours[t] for t in turn_ids] == adk_response_scores(pairs)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT), min_size=1, max_size=30))
@costly
def test_unigram_f1_equals_reference(pairs: list[tuple[str, str]]) -> None:
    turn_ids = _load(list(pairs))
    ours = scores(_SHARED, "response_unigram_f1")
    assert [ours[t] for t in turn_ids] == [unigram_f1(a, r) for a, r in pairs]


def test_missing_response_or_reference_scores_zero_as_in_adk() -> None:
    turn_ids = _load([(None, "It is sunny."), ("It is sunny.", None)])
    assert [scores(_SHARED, "response_match_score")[t] for t in turn_ids] == [0.0, 0.0]
    assert details(_SHARED, "response_match_score")[turn_ids[1]]["reference_missing"] is True
