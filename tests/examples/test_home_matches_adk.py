"""The example's numbers are ADK's: on the same conversations, tracegrade's per-turn and
per-case trajectory and response scores equal those of google-adk's own evaluators, with
the criteria ADK itself reads from the example's test_config.json."""

from __future__ import annotations

import asyncio
from types import ModuleType
from typing import Any

import pytest
from google.adk.agents.base_agent import BaseAgent
from google.adk.evaluation.eval_case import EvalCase, Invocation
from google.adk.evaluation.eval_config import (
    get_eval_metrics_from_config,
    get_evaluation_criteria_or_default,
)
from google.adk.evaluation.eval_set import EvalSet
from google.adk.evaluation.evaluation_generator import EvaluationGenerator
from google.adk.evaluation.evaluator import EvalStatus
from google.adk.evaluation.final_response_match_v1 import RougeEvaluator
from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator
from google.adk.runners import InMemoryRunner

from tests.examples.home_example import CONFIG, EVALSET, offline_agent_module, run_example
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.scoring import Selection, load_scoring_config, score
from tracegrade.store import SpanWriter

pytestmark = costly  # every test here: see tests.support.tiers.costly

METRICS = ("tool_trajectory_avg_score", "response_match_score")
Scores = dict[tuple[str, int | None, str], float]
"""(case, turn index or None for the case, metric) -> score"""


def _adk_conversation(agent: BaseAgent, case: EvalCase) -> list[Invocation]:
    """Replay the case as ADK's evaluation does, and read back ADK's actual invocations."""

    async def replay() -> list[Invocation]:
        runner = InMemoryRunner(agent=agent, app_name="home_automation")
        state = case.session_input.state if case.session_input else None
        session = await runner.session_service.create_session(
            app_name="home_automation", user_id="test_user_id", state=state
        )
        for expected in case.conversation or []:
            async for _ in runner.run_async(
                user_id="test_user_id", session_id=session.id, new_message=expected.user_content
            ):
                pass
        done = await runner.session_service.get_session(
            app_name="home_automation", user_id="test_user_id", session_id=session.id
        )
        await runner.close()
        assert done is not None
        return EvaluationGenerator.convert_events_to_eval_invocations(list(done.events))

    return asyncio.run(replay())


def _static_cases() -> list[EvalCase]:
    """The cases with expected turns (the scenario has none to compare with)."""
    cases = EvalSet.model_validate_json(EVALSET.read_text()).eval_cases
    return [case for case in cases if case.conversation is not None]


def _adk_scores(agent: BaseAgent) -> tuple[Scores, dict[str, bool]]:
    metrics = get_eval_metrics_from_config(get_evaluation_criteria_or_default(str(CONFIG)))
    evaluators: dict[str, Any] = {
        m.metric_name: (TrajectoryEvaluator if m.metric_name == METRICS[0] else RougeEvaluator)(
            eval_metric=m
        )
        for m in metrics
        if m.metric_name in METRICS
    }
    scores: Scores = {}
    passed: dict[str, bool] = {}
    for case in _static_cases():
        actual = _adk_conversation(agent, case)
        passed[case.eval_id] = True
        for name, evaluator in evaluators.items():
            result = evaluator.evaluate_invocations(actual, case.conversation)
            for turn, one in enumerate(result.per_invocation_results):
                scores[(case.eval_id, turn, name)] = one.score
            scores[(case.eval_id, None, name)] = result.overall_score
            passed[case.eval_id] &= result.overall_eval_status == EvalStatus.PASSED
    return scores, passed


def _tracegrade_scores(
    captured: BlockingSpanProcessor, writer: SpanWriter
) -> tuple[Scores, dict[str, bool]]:
    run_id = run_example(captured).run_id
    loaded = load_scoring_config(None, [str(EVALSET)])
    scored = score(writer.connection, Selection(run_id=run_id), loaded.config, loaded.specs)
    rows = writer.connection.execute(
        "SELECT case_id, turn_index, metric, score FROM scores "
        "WHERE scoring_id = ? AND level IN ('turn', 'case') AND metric IN ? "
        "AND status <> 'not_applicable'",  # the scenario case: ADK has no score either
        [scored.scoring_id, list(METRICS)],
    ).fetchall()
    # ADK's verdict knows only ADK's metrics: judge ours on the same two.
    static = {case.eval_id for case in _static_cases()}
    passed = {
        c.case_id: not set(c.failed_metrics) & set(METRICS) and c.verdict != "error"
        for c in scored.cases
        if c.case_id in static
    }
    return {(case, turn, metric): value for case, turn, metric, value in rows}, passed


def test_trajectory_and_response_scores_equal_adks(
    monkeypatch: pytest.MonkeyPatch, captured: BlockingSpanProcessor, writer: SpanWriter
) -> None:
    agent: ModuleType = offline_agent_module(monkeypatch)
    adk_scores, adk_passed = _adk_scores(agent.root_agent)
    ours, our_passed = _tracegrade_scores(captured, writer)

    assert ours == pytest.approx(adk_scores, abs=1e-9)
    assert our_passed == adk_passed
    assert [case for case, ok in adk_passed.items() if not ok] == ["bedside_lamp_off"]
    # Not vacuous: scores that are neither 0 nor 1 are compared too.
    assert 0 < adk_scores[("kitchen_devices", 0, "response_match_score")] < 0.8
