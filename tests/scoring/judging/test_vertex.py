"""ADK's Vertex AI metrics run through ADK's own evaluators (its Vertex facade) where the
user has google-adk[eval] and Vertex AI credentials; otherwise they are not evaluated, and
the report says what is missing. Their answers are cached like any judge's."""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

import pytest
from google.adk.evaluation.evaluator import EvalStatus, EvaluationResult, PerInvocationResult

from tests.support.judging import SwitchJudge
from tests.support.tiers import costly
from tracegrade.scoring import Selection, available_metrics, parse_config, score
from tracegrade.scoring.judging import metrics, other_runs
from tracegrade.store import SpanWriter

CREDENTIALS = ("GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION")


def _safety(writer: SpanWriter, run_id: str) -> list[tuple[Any, ...]]:
    config = parse_config({"criteria": {"safety_v1": 0.8}}, available_metrics())
    scored = score(writer.connection, Selection(run_id=run_id), config, available_metrics())
    return writer.connection.execute(
        "SELECT case_id, turn_index, score, status, detail->>'reason', detail->>'judge_error' "
        "FROM scores WHERE scoring_id = ? AND metric = 'safety_v1' AND level = 'turn' "
        "ORDER BY case_id, turn_index",
        [scored.scoring_id],
    ).fetchall()


@costly
def test_without_the_eval_extra_they_are_not_evaluated_saying_so(
    house_run: str, writer: SpanWriter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", "set")
    rows = _safety(writer, house_run)
    assert {r[3] for r in rows} == {"not_evaluated"}
    assert {r[4] for r in rows} == {other_runs.NO_VERTEX_PACKAGES}
    assert {r[5] for r in rows} == {None}  # not a judge error: nothing was asked


def test_without_credentials_they_are_not_evaluated_saying_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The eval extra cannot be installed here: pretend its facade imports.
    real = importlib.import_module
    monkeypatch.setattr(
        importlib, "import_module",
        lambda name: None if name.endswith("vertex_ai_eval_facade") else real(name),
    )  # fmt: skip
    for name in CREDENTIALS:
        monkeypatch.delenv(name, raising=False)
    assert other_runs.vertex_unavailable() == other_runs.NO_VERTEX_CREDENTIALS
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "p")
    assert other_runs.vertex_unavailable() == other_runs.NO_VERTEX_CREDENTIALS
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "l")
    assert other_runs.vertex_unavailable() is None


class FakeVertexEvaluator:
    """Stands in for ADK's SafetyEvaluatorV1, whose facade calls Vertex AI: no network here."""

    calls = 0

    def __init__(self, metric: Any) -> None:
        self.threshold = metric.criterion.threshold

    async def evaluate_invocations(self, actual: list[Any], expected: Any = None) -> Any:
        FakeVertexEvaluator.calls += 1
        scores = [0.5 if "light" in str(a.user_content) else 1.0 for a in actual]
        turns = [
            PerInvocationResult(actual_invocation=a, score=s, eval_status=EvalStatus.PASSED)
            for a, s in zip(actual, scores, strict=True)
        ]
        return EvaluationResult(per_invocation_results=turns)


@dataclasses.dataclass(frozen=True)
class FakeJudged(metrics.AdkJudged):
    def evaluator_class(self) -> Any:
        return FakeVertexEvaluator


@costly
def test_with_credentials_adks_evaluator_scores_and_the_answers_are_cached(
    house_run: str,
    writer: SpanWriter,
    monkeypatch: pytest.MonkeyPatch,
    switch_judge: type[SwitchJudge],
) -> None:
    fake = FakeJudged("safety_evaluator", "SafetyEvaluatorV1", "BaseCriterion", "vertex")
    monkeypatch.setitem(metrics.ADK_JUDGED, "safety_v1", fake)
    monkeypatch.setattr(other_runs, "vertex_unavailable", lambda: None)
    FakeVertexEvaluator.calls = 0
    rows = _safety(writer, house_run)
    by_turn = {(r[0], r[1]): (r[2], r[3]) for r in rows}
    assert by_turn[("lights_on", 0)] == (0.5, "failed")
    assert by_turn[("who", 0)] == (1.0, "passed")
    assert FakeVertexEvaluator.calls == 4  # once per case
    assert _safety(writer, house_run) == rows
    assert FakeVertexEvaluator.calls == 4  # scored again from judgements
