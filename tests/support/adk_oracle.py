"""google-adk as the oracle: its own replay of an eval case, and its own evaluators.

`adk_replay` runs a case the way ADK's evaluation does (a fresh InMemoryRunner and
session, the case's turns in order) and reads back ADK's actual invocations from the
session's events. `adk_scores` runs ADK's TrajectoryEvaluator or RougeEvaluator on actual
and expected invocations, per turn and for the case.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from google.adk.agents.base_agent import BaseAgent
from google.adk.evaluation.eval_case import EvalCase, IntermediateData, Invocation
from google.adk.evaluation.eval_metrics import EvalMetric, ToolTrajectoryCriterion
from google.adk.evaluation.evaluation_generator import EvaluationGenerator
from google.adk.evaluation.evaluator import EvalStatus
from google.adk.evaluation.final_response_match_v1 import RougeEvaluator
from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator
from google.adk.runners import InMemoryRunner
from google.genai import types

TRAJECTORY = "tool_trajectory_avg_score"
RESPONSE = "response_match_score"


@dataclass(frozen=True)
class AdkScores:
    turns: list[float | None]
    case: float | None
    passed: bool
    """ADK's verdict for the metric on the case (overall status PASSED)."""


def adk_replay(agent: BaseAgent, case: EvalCase, app_name: str = "oracle") -> list[Invocation]:
    """ADK's actual invocations for the case, as its evaluation derives them."""

    async def replay() -> list[Invocation]:
        runner = InMemoryRunner(agent=agent, app_name=app_name)
        state = case.session_input.state if case.session_input else None
        session = await runner.session_service.create_session(
            app_name=app_name, user_id="test_user_id", state=state
        )
        for expected in case.conversation or []:
            async for _ in runner.run_async(
                user_id="test_user_id", session_id=session.id, new_message=expected.user_content
            ):
                pass
        done = await runner.session_service.get_session(
            app_name=app_name, user_id="test_user_id", session_id=session.id
        )
        await runner.close()
        assert done is not None
        return EvaluationGenerator.convert_events_to_eval_invocations(list(done.events))

    return asyncio.run(replay())


def evaluator(metric: str, criterion: dict[str, Any]) -> TrajectoryEvaluator | RougeEvaluator:
    """ADK's evaluator for a metric, built from a criterion as ADK reads one from
    test_config.json (threshold, match_type, ignore_args; either spelling)."""
    threshold = float(criterion.get("threshold", 0.5))
    if metric == RESPONSE:
        return RougeEvaluator(EvalMetric(metric_name=RESPONSE, threshold=threshold))
    parsed = ToolTrajectoryCriterion.model_validate({"threshold": threshold, **criterion})
    return TrajectoryEvaluator(
        eval_metric=EvalMetric(metric_name=TRAJECTORY, threshold=threshold, criterion=parsed)
    )


def adk_scores(
    metric: str,
    criterion: dict[str, Any],
    actual: Sequence[Invocation],
    expected: Sequence[Invocation],
) -> AdkScores:
    result = evaluator(metric, criterion).evaluate_invocations(list(actual), list(expected))
    return AdkScores(
        [r.score for r in result.per_invocation_results],
        result.overall_score,
        result.overall_eval_status == EvalStatus.PASSED,
    )


def invocation(calls: Sequence[dict[str, Any]], final: str | None, user: str = "q") -> Invocation:
    """An Invocation from plain data: calls as {name, args} (args absent or None: none)."""
    return Invocation(
        user_content=types.Content(role="user", parts=[types.Part(text=user)]),
        final_response=None
        if final is None
        else types.Content(role="model", parts=[types.Part(text=final)]),
        intermediate_data=IntermediateData(
            tool_uses=[types.FunctionCall(name=c["name"], args=c.get("args")) for c in calls]
        ),
    )
