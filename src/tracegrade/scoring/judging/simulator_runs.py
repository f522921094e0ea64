"""per_turn_user_simulator_quality_v1: ADK's own evaluator rates the simulated user of a
conversation scenario, its judge routed to tracegrade (cache, pool, retries, budget).

ADK's `PerTurnUserSimulatorQualityV1.evaluate_invocations` makes its calls one after
another: `num_samples` for each turn after the first (did the user's message follow the
plan?), then `num_samples` for the stop check (should the conversation have ended there?).
So the k-th call belongs to turn `1 + k // num_samples`, and the calls past those to the
stop check, kept on the last turn as step `stop`. Each answer is read by ADK's parser;
the first turn (no call: the starting prompt, compared as text) and the aggregation are
SQL (queries/scorers/per_turn_user_simulator_quality_v1.sql).
"""

from __future__ import annotations

from typing import Any

from google.adk.evaluation.conversation_scenarios import ConversationScenario
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse

from tracegrade.scoring.judging import parse
from tracegrade.scoring.judging.calls import (
    Answer,
    JudgeCaller,
    request_text,
    to_evaluator,
)
from tracegrade.scoring.judging.invocations import actual_invocation
from tracegrade.scoring.judging.plan import Group, MetricPlan, Results
from tracegrade.scoring.judging.proxy import routed
from tracegrade.scoring.judging.turns import TurnData

NOT_A_SCENARIO = "rates ADK's user simulator, which only conversation scenarios have"


async def simulator(plan: MetricPlan, group: Group, caller: JudgeCaller) -> Results:
    results = Results()
    scenario = group.turns[0].scenario if group.turns else None
    if scenario is None:
        results.skip(plan, group.targets, "not_applicable", NOT_A_SCENARIO)
        return results
    evaluator = await _evaluated(plan, group.turns, scenario, caller, results)
    for answer in results.answers:
        if evaluator is not None and answer.outcome == "answered":
            answer.score = evaluator._convert_llm_response_to_score(answer.as_response()).score
            answer.rationale = parse.reasoning(answer.response)
    return results


async def _evaluated(
    plan: MetricPlan,
    turns: list[TurnData],
    scenario: dict[str, Any],
    caller: JudgeCaller,
    results: Results,
) -> Any:
    """ADK's evaluator run over the conversation, every call answered by `caller`; the
    evaluator, or None when it could not finish (each turn then says why)."""
    assert plan.judge is not None
    judge, samples = plan.judge, plan.num_samples

    async def answer(request: LlmRequest) -> LlmResponse:
        k = len(results.answers)
        turn, step = _slot(k, turns, samples)
        prompt = request_text(request)
        config = request.config if request.config is not None else plan.request_config
        got = await caller.ask(plan.name, turn.turn_id, judge, prompt, config, k % samples)
        got.step = step
        results.answers.append(got)
        return to_evaluator(got)

    with routed(answer) as name:
        evaluator = plan.evaluator(name)
        try:
            await evaluator.evaluate_invocations(
                [actual_invocation(t) for t in turns],
                None,
                ConversationScenario.model_validate(scenario),
            )
        except Exception as exc:  # as under LocalEvalService: the metric is not evaluated
            _left_unscored(plan, turns, exc, results)
            return None
    return evaluator


def _slot(k: int, turns: list[TurnData], samples: int) -> tuple[TurnData, str]:
    """The turn (and step) ADK's k-th call is about."""
    asked = 1 + k // samples
    return (turns[asked], "turn") if asked < len(turns) else (turns[-1], "stop")


def _left_unscored(
    plan: MetricPlan, turns: list[TurnData], exc: Exception, results: Results
) -> None:
    """Every turn of the conversation without a score, and why (a failed call or a spent
    budget as such, so the gate counts them)."""
    kept: list[Answer] = [a for a in results.answers if a.outcome in ("failed", "unjudged")]
    results.answers[:] = kept
    done = {a.turn_id for a in kept}
    reason = f"{type(exc).__name__}: {exc}"
    results.skip(plan, [t for t in turns if t.turn_id not in done], "not_applicable", reason)
