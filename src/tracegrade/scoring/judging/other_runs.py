"""Running template judges (tracegrade's own and yours) and ADK's Vertex AI metrics."""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import time
import uuid

from tracegrade.scoring.judging import parse
from tracegrade.scoring.judging.adk_runs import LAST_TURN_REASON, _all_or_none, _invocations
from tracegrade.scoring.judging.calls import Answer, JudgeCaller, sha256
from tracegrade.scoring.judging.plan import Group, MetricPlan, Results
from tracegrade.scoring.judging.templates import template_context
from tracegrade.scoring.judging.turns import TurnData

NO_VERTEX_PACKAGES = (
    "needs Vertex AI: install google-adk[eval] (pandas and the Vertex AI SDK), which ADK "
    "uses to run this metric"
)
NO_VERTEX_CREDENTIALS = (
    "needs Vertex AI credentials: set GOOGLE_API_KEY, or GOOGLE_CLOUD_PROJECT and "
    "GOOGLE_CLOUD_LOCATION (as ADK's Vertex facade reads them)"
)


async def templated(plan: MetricPlan, group: Group, caller: JudgeCaller) -> Results:
    results = Results()
    targets = group.targets[-1:] if plan.rates_conversation else group.targets
    results.skip(plan, [t for t in group.targets if t not in targets], "not_applicable",
                 LAST_TURN_REASON)  # fmt: skip
    assert plan.template is not None
    assert plan.judge is not None
    asks = []
    for turn in targets:
        rubrics = [*plan.options.get("rubrics", []), *group.rubrics(turn)]
        prompt = plan.template.render(template_context(group.history(turn), plan.options, rubrics))
        if prompt.strip():
            asks += [caller.ask(plan.name, turn.turn_id, plan.judge, prompt, plan.request_config, s)
                     for s in range(plan.num_samples)]  # fmt: skip
    for answer in await asyncio.gather(*asks):
        answer.verdicts = parse.json_answer(answer.response)
        results.answers.append(answer)
    return results


def vertex_unavailable() -> str | None:
    """Why ADK's Vertex AI facade cannot run here, or None."""
    try:
        importlib.import_module("google.adk.evaluation.vertex_ai_eval_facade")
    except ImportError:
        return NO_VERTEX_PACKAGES
    env = os.environ
    if env.get("GOOGLE_API_KEY") or (
        env.get("GOOGLE_CLOUD_PROJECT") and env.get("GOOGLE_CLOUD_LOCATION")
    ):
        return None
    return NO_VERTEX_CREDENTIALS


async def vertex(plan: MetricPlan, group: Group, caller: JudgeCaller) -> Results:
    """ADK's evaluator (its Vertex facade calls Vertex AI) over the group's turns: one
    answer per turn, cached like any judge answer."""
    results = Results()
    reason = vertex_unavailable()
    if reason is None and caller.budget.limit is not None:
        reason, outcome = "Vertex AI calls cannot be priced against a judge budget", "unjudged"
    else:
        outcome = "not_applicable"
    if reason is not None:
        results.skip(plan, group.targets, outcome, reason)
        return results
    turns = group.history(group.targets[-1])
    actual, expected = _invocations(group, turns)
    inputs = json.dumps(
        [a.model_dump(mode="json", exclude_none=True) for a in actual], sort_keys=True
    )
    asked = [_asked(plan, t, inputs) for t in group.targets]
    cached = [caller.cache.get(a.key) for a in asked]
    if all(c is not None for c in cached):
        results.answers += [Answer(**{**c.__dict__, "cached": True}) for c in cached if c]
        return results
    await _evaluate(plan, actual, _all_or_none(expected), turns, asked)
    results.answers += asked
    return results


def _asked(plan: MetricPlan, turn: TurnData, inputs: str) -> Answer:
    prompt = f"{plan.name} over {inputs}"
    return Answer(plan.name, turn.turn_id, plan.judge_name, prompt, sha256(prompt),
                  sha256(str(plan.criterion.threshold)), 0, "vertex", "answered")  # fmt: skip


async def _evaluate(plan: MetricPlan, actual: list, expected: list | None,  # type: ignore[type-arg]
                    turns: list[TurnData], asked: list[Answer]) -> None:  # fmt: skip
    from google.adk.evaluation.eval_metrics import EvalMetric

    started = time.monotonic()
    metric = EvalMetric(metric_name=plan.name, threshold=plan.criterion.threshold,
                        criterion=plan.criterion)  # fmt: skip
    assert plan.adk is not None
    evaluator = plan.adk.build(metric)
    try:
        # The facade's calls block: keep them off the loop the other judges share.
        result = await asyncio.to_thread(
            asyncio.run, evaluator.evaluate_invocations(actual, expected)
        )
    except Exception as exc:
        for answer in asked:
            answer.outcome, answer.error = "failed", f"{type(exc).__name__}: {exc}"
    else:
        by_turn = dict(zip([t.turn_id for t in turns], result.per_invocation_results, strict=False))
        for answer in asked:
            _read_vertex(answer, by_turn.get(answer.turn_id))
    for answer in asked:
        answer.judgement_id, answer.attempts = uuid.uuid4().hex, 1
        answer.latency_ms = (time.monotonic() - started) * 1000


def _read_vertex(answer: Answer, result: object) -> None:
    scores = getattr(result, "rubric_scores", None) or []
    answer.score = getattr(result, "score", None)
    answer.verdicts = [s.model_dump(mode="json") for s in scores]
    answer.response = json.dumps(answer.verdicts)
    explanation = [s.rationale for s in scores if s.rubric_id in ("explanation", "error")]
    answer.rationale = explanation[0] if explanation else None
