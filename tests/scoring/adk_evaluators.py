"""ADK's own evaluators, called the way `adk eval` calls them, as the oracle for our SQL."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from google.adk.evaluation.eval_case import IntermediateData, Invocation
from google.adk.evaluation.eval_metrics import EvalMetric, ToolTrajectoryCriterion
from google.adk.evaluation.final_response_match_v1 import RougeEvaluator
from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator
from google.genai import types

Calls = Sequence[tuple[str, dict[str, Any] | None]]


def _invocation(calls: Calls = (), final: str | None = None) -> Invocation:
    return Invocation(
        user_content=types.Content(role="user", parts=[types.Part(text="q")]),
        final_response=types.Content(role="model", parts=[types.Part(text=final)])
        if final is not None
        else None,
        intermediate_data=IntermediateData(
            tool_uses=[types.FunctionCall(name=name, args=args) for name, args in calls]
        ),
    )


def adk_trajectory_scores(
    pairs: Sequence[tuple[Calls, Calls]], match_type: str, ignore_args: bool = False
) -> list[float | None]:
    """Per-turn scores of ADK's TrajectoryEvaluator for (actual, expected) call lists."""
    criterion = ToolTrajectoryCriterion(
        threshold=1.0,
        match_type=ToolTrajectoryCriterion.MatchType[match_type],
        ignore_args=ignore_args,
    )
    evaluator = TrajectoryEvaluator(
        eval_metric=EvalMetric(
            metric_name="tool_trajectory_avg_score", threshold=1.0, criterion=criterion
        )
    )
    result = evaluator.evaluate_invocations(
        [_invocation(actual) for actual, _ in pairs],
        [_invocation(expected) for _, expected in pairs],
    )
    return [r.score for r in result.per_invocation_results]


def adk_response_scores(pairs: Sequence[tuple[str, str]]) -> list[float | None]:
    """Per-turn response_match_score of ADK's evaluator for (actual, reference) texts."""
    evaluator = RougeEvaluator(EvalMetric(metric_name="response_match_score", threshold=0.8))
    result = evaluator.evaluate_invocations(
        [_invocation(final=actual) for actual, _ in pairs],
        [_invocation(final=reference) for _, reference in pairs],
    )
    return [r.score for r in result.per_invocation_results]
