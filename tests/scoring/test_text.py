"""Our tokens and ROUGE-1 against ADK's own evaluator (`response_match_score`).

The spec is ADK's code: every expected value here is either computed by ADK on the same
strings, or one of the observations published in `shared/reference/adk-eval.md`.
"""

from __future__ import annotations

import pytest
from google.adk.evaluation.eval_case import Invocation
from google.adk.evaluation.eval_metrics import BaseCriterion, EvalMetric
from google.adk.evaluation.final_response_match_v1 import (
    RougeEvaluator,
    _calculate_rouge_1_scores,
    _UnicodeAwareTokenizer,
)
from google.genai import types
from hypothesis import given
from hypothesis import strategies as st
from rouge_score.rouge_scorer import _create_ngrams, _score_ngrams

from tests.scoring.reference import rouge1_f, token_f1
from tests.scoring.text_strategies import text_pairs, texts
from tracegrade.scoring.text import rouge_tokens

ADK_TOKENIZER = _UnicodeAwareTokenizer(use_stemmer=True)

# adk-eval.md, `response_match_score`, "Observed": actual, reference, P, R, F (3 decimals).
OBSERVED = [
    ("It is sunny in Paris.", "It is sunny in Paris.", 1, 1, 1.0),
    ("Sunny in Paris", "It is sunny in Paris.", 1, 0.6, 0.75),
    (
        "It is sunny in Paris, 70.7°F, and the local time is 14:00.",
        "Paris: sunny, 70.7 F, 14:00 local time.",
        0.6,
        1,
        0.75,
    ),
    ("The orders were cancelled", "order cancelled", 0.5, 1, 0.667),
    ("3 apples", "3.0 apples", 1, 0.667, 0.8),
    ("", "anything", 0, 0, 0.0),
    ("", "", 0, 0, 0.0),
    ("東京は晴れです", "東京は晴れ", 0.714, 1, 0.833),
    ("Café crème", "cafe creme", 0, 0, 0.0),
    ("It is 68.0 F in Paris at 14:00.", "20 C is 68.0 F.", 0.4, 0.667, 0.5),  # adk eval e2e
]


def _invocation(text: str | None) -> Invocation:
    question = types.Content(role="user", parts=[types.Part(text="q")])
    answer = None if text is None else types.Content(role="model", parts=[types.Part(text=text)])
    return Invocation(user_content=question, final_response=answer)


def _adk_scores(actual: list[str | None], reference: list[str | None]) -> list[float | None]:
    """Per-turn scores from ADK's RougeEvaluator, the class behind response_match_score."""
    metric = EvalMetric(metric_name="response_match_score", criterion=BaseCriterion(threshold=0.8))
    result = RougeEvaluator(metric).evaluate_invocations(
        [_invocation(t) for t in actual], [_invocation(t) for t in reference]
    )
    return [r.score for r in result.per_invocation_results]


@pytest.mark.parametrize(("actual", "reference", "p", "r", "f"), OBSERVED)
def test_published_observations(actual: str, reference: str, p: float, r: float, f: float) -> None:
    [adk] = _adk_scores([actual], [reference])
    assert rouge1_f(actual, reference) == pytest.approx(adk, abs=1e-12)
    assert rouge1_f(actual, reference) == pytest.approx(f, abs=5e-4)
    assert rouge_tokens(actual) == ADK_TOKENIZER.tokenize(actual)
    assert rouge_tokens(reference) == ADK_TOKENIZER.tokenize(reference)


def test_a_missing_final_response_scores_as_empty_text() -> None:
    assert _adk_scores([None, "order cancelled"], ["order cancelled", None]) == [
        rouge1_f("", "order cancelled"),
        rouge1_f("order cancelled", ""),
    ]


@given(texts())
def test_tokens_equal_adks(text: str) -> None:
    assert rouge_tokens(text) == ADK_TOKENIZER.tokenize(text)


@given(text_pairs())
def test_rouge1_equals_adks(pair: tuple[str, str]) -> None:
    actual, reference = pair
    adk = _calculate_rouge_1_scores(actual, reference).fmeasure
    assert rouge1_f(actual, reference) == pytest.approx(adk, abs=1e-9)


@given(st.lists(st.sampled_from("abcde")), st.lists(st.sampled_from("abcdef")))
def test_token_f1_is_rouge_scores_arithmetic(actual: list[str], reference: list[str]) -> None:
    rouge = _score_ngrams(_create_ngrams(reference, 1), _create_ngrams(actual, 1))
    assert token_f1(actual, reference) == rouge.fmeasure


def test_every_bmp_character_between_letters_tokenizes_as_adk() -> None:
    # One text per block keeps ADK's slow tokenizer to a second; the hypothesis tests
    # above sample the astral planes and other contexts.
    for start in range(0, 0x10000, 4096):
        codes = (c for c in range(start, start + 4096) if not 0xD800 <= c <= 0xDFFF)
        text = " ".join(f"ab{chr(c)}cd" for c in codes)
        assert rouge_tokens(text) == ADK_TOKENIZER.tokenize(text), hex(start)
