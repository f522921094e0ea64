"""Running ADK's judge metrics: ADK formats the prompts and parses the answers; tracegrade
makes the calls (cache, pool, retries, budget) and aggregates in SQL.

- `per_turn` (final_response_match_v2, the single-turn rubric metrics): the evaluator's
  public `format_auto_rater_prompt` for every turn of the case in order (a rubric metric
  then parses every turn against the last turn's rubrics, as ADK's does), `num_samples`
  calls each, and its public `convert_auto_rater_response_to_score` on every answer.
- `last_turn` (rubric_based_multi_turn_trajectory_quality_v1) and `steps`
  (hallucinations_v1) assemble their prompts in private code, so the evaluator's own
  `evaluate_invocations` runs, its judge routed to tracegrade (proxy.py): every call it
  makes is one answer here. The multi-turn judge rates the last turn with the whole
  conversation; hallucinations checks each turn on its own (ADK's turns are independent),
  segmenting then validating each response.
"""

from __future__ import annotations

import asyncio
import string
from collections import Counter
from typing import Any

from google.adk.evaluation.eval_case import Invocation
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse

from tracegrade.scoring.judging import parse
from tracegrade.scoring.judging.calls import (
    Answer,
    JudgeCaller,
    config_sha,
    request_text,
    to_evaluator,
)
from tracegrade.scoring.judging.invocations import expected_invocation, with_rubrics
from tracegrade.scoring.judging.plan import Group, MetricPlan, Results
from tracegrade.scoring.judging.proxy import routed
from tracegrade.scoring.judging.turns import TurnData

LAST_TURN_REASON = "a multi-turn judge rates the conversation at its last turn"


async def per_turn(plan: MetricPlan, group: Group, caller: JudgeCaller) -> Results:
    results = Results()
    actual, expected = _invocations(group, group.targets)
    with routed(_unused) as name:
        evaluator = plan.evaluator(name)
    try:
        prompts = [
            evaluator.format_auto_rater_prompt(a, e) for a, e in zip(actual, expected, strict=True)
        ]
    except ValueError as exc:  # ADK: the metric is not evaluated for the case
        results.skip(plan, group.targets, "not_applicable", str(exc))
        return results
    assert plan.judge is not None
    asks = [
        caller.ask(plan.name, turn.turn_id, plan.judge, prompt, plan.request_config, sample)
        for turn, prompt in zip(group.targets, prompts, strict=True)
        for sample in range(plan.num_samples)
    ]
    for answer in await asyncio.gather(*asks):
        _parse_scored(evaluator, plan, answer)
        results.answers.append(answer)
    return results


async def last_turn(plan: MetricPlan, group: Group, caller: JudgeCaller) -> Results:
    results = Results()
    target = group.targets[-1]
    turns = group.history(target)
    evaluated = await _adk_driven(plan, group, turns, target, caller, results)
    earlier = [t for t in group.targets if t is not target]
    results.skip(plan, earlier, "not_applicable", LAST_TURN_REASON)
    if evaluated is not None:
        for answer in results.answers:
            if answer.turn_id == target.turn_id:
                _parse_scored(evaluated, plan, answer)
    return results


async def steps(plan: MetricPlan, group: Group, caller: JudgeCaller) -> Results:
    results = Results()
    parts = await asyncio.gather(*(_steps_of(plan, group, turn, caller) for turn in group.targets))
    for part in parts:
        results.answers.extend(part.answers)
    return results


async def _steps_of(plan: MetricPlan, group: Group, turn: TurnData, caller: JudgeCaller) -> Results:
    results = Results()
    evaluator = await _adk_driven(plan, group, [turn], turn, caller, results)
    if evaluator is None:
        return results
    segment = _literal_head(evaluator.segmenter_prompt)
    for answer in results.answers:
        if answer.outcome != "answered":
            continue
        if answer.prompt.startswith(segment):
            answer.step, answer.verdicts = "segment", parse.sentences(answer.response)
        else:
            answer.step = "validate"
            answer.score, answer.verdicts = parse.validation(answer.response)
    if not results.answers:
        results.skip(plan, [turn], "not_applicable", "the turn has no response text to check")
    return results


async def _adk_driven(
    plan: MetricPlan,
    group: Group,
    turns: list[TurnData],
    target: TurnData,
    caller: JudgeCaller,
    results: Results,
) -> Any:
    """Run the evaluator's own `evaluate_invocations` over `turns`; every call it makes is
    asked for `target`. The evaluator, or None when ADK could not evaluate the metric."""
    samples: Counter[tuple[str, str]] = Counter()
    assert plan.judge is not None
    judge = plan.judge

    async def answer(request: LlmRequest) -> LlmResponse:
        prompt = request_text(request)
        key = (prompt, config_sha(request.config))
        sample = samples[key]
        samples[key] += 1
        config = request.config if request.config is not None else plan.request_config
        got = await caller.ask(plan.name, target.turn_id, judge, prompt, config, sample)
        results.answers.append(got)
        return to_evaluator(got)

    actual, expected = _invocations(group, turns)
    with routed(answer) as name:
        evaluator = plan.evaluator(name, parallelism=plan.num_samples)
        try:
            await evaluator.evaluate_invocations(actual, _all_or_none(expected))
        except Exception as exc:  # ADK's evaluator raised: LocalEvalService's NOT_EVALUATED
            results.answers.clear()
            results.skip(plan, [target], "not_applicable", f"{type(exc).__name__}: {exc}")
            return None
    return evaluator


def _invocations(
    group: Group, turns: list[TurnData]
) -> tuple[list[Invocation], list[Invocation | None]]:
    actual = [with_rubrics(group.invocation(t), group.rubrics(t)) for t in turns]
    return actual, [expected_invocation(t) for t in turns]


def _all_or_none(expected: list[Invocation | None]) -> list[Invocation] | None:
    present = [e for e in expected if e is not None]
    return present if len(present) == len(expected) else None


def _parse_scored(evaluator: Any, plan: MetricPlan, answer: Answer) -> None:
    """What the evaluator's public parser reads in the answer."""
    if answer.outcome != "answered":
        return
    scored = evaluator.convert_auto_rater_response_to_score(answer.as_response())
    answer.score = scored.score
    if scored.rubric_scores is not None:
        answer.verdicts = [s.model_dump(mode="json") for s in scored.rubric_scores]
    else:
        answer.rationale = parse.reasoning(answer.response)


def _literal_head(template: str) -> str:
    """The text a prompt template starts with, up to its first field."""
    head = []
    for literal, field_name, _, _ in string.Formatter().parse(template):
        head.append(literal)
        if field_name is not None:
            break
    return "".join(head)


async def _unused(request: LlmRequest) -> LlmResponse:
    raise RuntimeError("tracegrade calls this metric's judge itself")
