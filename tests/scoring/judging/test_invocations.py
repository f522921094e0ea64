"""Invocations rebuilt from spans make ADK's judges write byte-identical prompts: for each
agent shape (parallel calls, several turns, tool errors, int/float arguments, sequential,
parallel and transfer sub-agents, an AgentTool, an error response), in ADK's telemetry
schema 2 and 1, every prompt the four span-fed judges write from tracegrade's invocations
equals the one they write from ADK's own invocations of the same session (tool-call ids
included)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from google.adk.evaluation.eval_case import Invocation
from google.adk.evaluation.eval_config import EvalConfig, get_eval_metrics_from_config

from tests.support.adk_run import adk_settings
from tests.support.judging import scenario_invocations
from tests.support.scenarios import SCENARIOS
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.scoring import Selection
from tracegrade.scoring.engine import prepare_inputs
from tracegrade.scoring.functions import register_functions
from tracegrade.scoring.judging.invocations import actual_invocation
from tracegrade.scoring.judging.metrics import ADK_JUDGED
from tracegrade.scoring.judging.turns import load_turns
from tracegrade.store import SpanWriter
from tracegrade.testing import ScriptedJudge, judge_answers

pytestmark = costly  # every test here: see tests.support.tiers.costly

NAMES = ["parallel_calls", "multi_turn", "tool_errors", "numbers", "sequential", "transfer",
         "agent_tool", "error_response", "parallel_agent"]  # fmt: skip
RUBRIC = [{"rubric_id": "r1", "rubric_content": {"text_property": "Answers the request."}}]
JUDGED: dict[str, dict[str, Any]] = {
    "rubric_based_final_response_quality_v1": {"rubrics": RUBRIC,
                                               "include_intermediate_responses_in_final": True},
    "rubric_based_tool_use_quality_v1": {"rubrics": RUBRIC},
    "rubric_based_multi_turn_trajectory_quality_v1": {"rubrics": RUBRIC},
    "hallucinations_v1": {"evaluate_intermediate_nl_responses": True},
}  # fmt: skip


def _prompts(metric: str, invocations: list[Invocation]) -> list[str]:
    """Every prompt the metric's ADK evaluator sends about these invocations."""
    judge = ScriptedJudge(answer=lambda prompt, sample: judge_answers.auto(prompt))
    criterion: dict[str, Any] = {"threshold": 0.5, **JUDGED[metric]}
    criterion["judge_model_options"] = {"judge_model": "gemini-2.5-flash", "num_samples": 1}
    config = EvalConfig.model_validate({"criteria": {metric: criterion}})
    (eval_metric,) = [m for m in get_eval_metrics_from_config(config) if m.metric_name == metric]
    evaluator = ADK_JUDGED[metric].build(eval_metric)
    evaluator._judge_model = judge  # the oracle's judge: ADK's evaluator, our scripted model
    asyncio.run(evaluator.evaluate_invocations(invocations))
    return [call.prompt for call in judge.calls]


@pytest.mark.parametrize("schema", ["2", "1"])
@pytest.mark.parametrize("name", NAMES)
def test_prompts_from_spans_equal_prompts_from_adks_events(
    name: str, schema: str, captured: BlockingSpanProcessor, writer: SpanWriter
) -> None:
    scenario = SCENARIOS[name]
    with adk_settings(schema, content=True):
        theirs = scenario_invocations(scenario.build(), scenario.turns, scenario.raises)
    assert captured.force_flush()
    ids = [
        r[0]
        for r in writer.connection.execute("SELECT turn_id FROM turns ORDER BY start_ns").fetchall()
    ]
    register_functions(writer.connection)
    prepare_inputs(writer.connection, Selection())  # the turns to judge: all, as traffic
    turns = load_turns(writer.connection)
    ours = [actual_invocation(turns[i]) for i in ids]
    assert len(ours) == len(theirs)
    written = 0
    for metric in JUDGED:
        expected = _prompts(metric, theirs)
        assert _prompts(metric, ours) == expected, metric
        written += len(expected)
    assert written >= 3
