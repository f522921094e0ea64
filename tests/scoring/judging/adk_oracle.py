"""What ADK's own evaluators make of a run: LocalEvalService's steps for one case and one
metric (copy the case's and turns' rubrics to the actual invocations, build the evaluator
from the metric `get_eval_metrics_from_config` reads, `evaluate_invocations`), with ADK's
invocations of the very turns tracegrade recorded (tests/support/judging.RecordingRunner).

local_eval_service imports pandas (the eval extra), so its two rubric-copying helpers are
restated here, line for line from google-adk 2.13."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

from google.adk.evaluation.eval_case import EvalCase, Invocation
from google.adk.evaluation.eval_config import EvalConfig, get_eval_metrics_from_config
from google.adk.evaluation.eval_rubrics import Rubric
from google.adk.evaluation.eval_set import EvalSet
from google.adk.evaluation.evaluator import EvalStatus

from tracegrade.scoring.judging.metrics import ADK_JUDGED

Scores = dict[tuple[str, str, int | None], tuple[float | None, str]]
"""(metric, case, turn index or None for the case) -> (score, status)"""

STATUS = {
    EvalStatus.PASSED: "passed",
    EvalStatus.FAILED: "failed",
    EvalStatus.NOT_EVALUATED: "not_evaluated",
}


def adk_scores(
    recorded: dict[str, list[Invocation]], eval_set: dict[str, Any], criteria: dict[str, Any]
) -> Scores:
    metrics = get_eval_metrics_from_config(EvalConfig.model_validate({"criteria": criteria}))
    scores: Scores = {}
    for case in EvalSet.model_validate(eval_set).eval_cases:
        for metric in metrics:
            if metric.metric_name in ADK_JUDGED:
                scores |= _case_scores(recorded, case, metric)
    return scores


def _case_scores(recorded: dict[str, list[Invocation]], case: EvalCase, metric: Any) -> Scores:
    expected = case.conversation or []
    actual = copy.deepcopy(recorded[str(expected[0].user_content.parts[0].text)])  # type: ignore[index]
    for invocation in actual:
        _add_rubrics(invocation, case.rubrics or [])
    for invocation, expected_turn in zip(actual, expected, strict=False):
        _add_rubrics(invocation, expected_turn.rubrics or [])
    evaluator = ADK_JUDGED[metric.metric_name].evaluator_class()(metric)
    try:
        result = asyncio.run(evaluator.evaluate_invocations(actual, expected))
    except Exception:  # LocalEvalService: the metric is not evaluated for the case
        return {(metric.metric_name, case.eval_id, None): (None, "not_evaluated")}
    out: Scores = {
        (metric.metric_name, case.eval_id, None): (
            result.overall_score, STATUS[result.overall_eval_status])
    }  # fmt: skip
    for index, turn in enumerate(result.per_invocation_results):
        out[(metric.metric_name, case.eval_id, index)] = (turn.score, STATUS[turn.eval_status])
    return out


def _add_rubrics(invocation: Invocation, rubrics: list[Rubric]) -> None:
    """local_eval_service._add_rubrics_to_invocation."""
    if not invocation.rubrics:
        invocation.rubrics = []
    existing = {r.rubric_id for r in invocation.rubrics}
    for rubric in rubrics:
        if rubric.rubric_id in existing:
            raise ValueError(f"Rubric with rubric_id '{rubric.rubric_id}' already exists.")
        invocation.rubrics.append(rubric)
        existing.add(rubric.rubric_id)
