"""What an eval run records about itself, as spans.

The run and each case's expectations are written as short spans beside the turns'
traces. Whatever carries the turns (the in-process exporter, or OTLP through a
Collector to `tracegrade serve`) carries these too, so any database holding a run's
turns also holds what they are scored against. The `eval_runs`, `expected_turns` and
`expected_tool_calls` views read them back.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.util.types import AttributeValue

from tracegrade.evalset import Case, LoadedEvalSet
from tracegrade.store.run_identity import SIGNATURE, run_signature, run_token

TRACER_NAME = "tracegrade"
RUN_SPAN = "tracegrade.eval_run"
CASE_SPAN = "tracegrade.eval_case"
TURN_SPAN = "tracegrade.eval_turn"
SIMULATOR_SPAN = "tracegrade.user_simulator"

RUN_ID = "tracegrade.run_id"
EVAL_SET_ID = "tracegrade.eval_set_id"
CASE_ID = "tracegrade.case_id"
REPEAT = "tracegrade.repeat"
TURN_INDEX = "tracegrade.turn_index"
USER_TEXT = "tracegrade.user_text"
FINAL_TEXT = "tracegrade.final_text"
USER_ID = "tracegrade.user_id"
APP_NAME = "tracegrade.app_name"
SKIPPED = "tracegrade.skipped"
TAGS = "tracegrade.tags"
EXPECTED = "tracegrade.expected"
TOOL_DEFINITIONS = "tracegrade.tool_definitions"
SIMULATOR_STATUS = "tracegrade.simulator.status"
SIMULATOR_MODEL = "tracegrade.simulator.model"
SIMULATOR_CALLS = "tracegrade.simulator.llm_calls"
SIMULATOR_INPUT_TOKENS = "tracegrade.simulator.input_tokens"
SIMULATOR_OUTPUT_TOKENS = "tracegrade.simulator.output_tokens"


@dataclass(frozen=True)
class RunRecord:
    """What `eval_runs` shows about a run."""

    run_id: str
    agent: str
    eval_sets: list[LoadedEvalSet]
    models: list[str]
    repeats: int
    parallel: int
    adk_version: str
    tracegrade_version: str
    git_commit: str | None
    criteria: dict[str, Any]
    tool_definitions: dict[str, list[dict[str, Any]]]
    tags: list[str] = field(default_factory=list)
    """Names given with `--tag`: `--baseline TAG` is the newest run carrying one."""


def tracer() -> trace.Tracer:
    from tracegrade import __version__

    return trace.get_tracer(TRACER_NAME, __version__)


def record_run(run: RunRecord, cases: list[Case]) -> None:
    """One trace per run: the run span, with a child span per case holding its expectations."""
    attributes: dict[str, AttributeValue] = {
        RUN_ID: run.run_id,
        "tracegrade.agent": run.agent,
        "tracegrade.eval_sets": json.dumps([_eval_set(s) for s in run.eval_sets]),
        "tracegrade.models": run.models,
        "tracegrade.repeats": run.repeats,
        "tracegrade.parallel": run.parallel,
        "tracegrade.adk_version": run.adk_version,
        "tracegrade.version": run.tracegrade_version,
        "tracegrade.criteria": json.dumps(run.criteria),
        # Each agent's tools as its model gets them, for checking calls where spans lack them.
        TOOL_DEFINITIONS: json.dumps(run.tool_definitions),
    }
    if run.git_commit:
        attributes["tracegrade.git_commit"] = run.git_commit
    if run.tags:  # on the run span, so they travel (and are signed) with it, as the rest
        attributes[TAGS] = list(run.tags)
    token = run_token()
    if token:  # readers holding the token can tell this run from a forged one
        attributes[SIGNATURE] = run_signature(attributes, token)
    with tracer().start_as_current_span(RUN_SPAN, context=Context(), attributes=attributes):
        for case in cases:
            tracer().start_span(CASE_SPAN, attributes=_case_attributes(run.run_id, case)).end()


def _eval_set(loaded: LoadedEvalSet) -> dict[str, Any]:
    return {
        "eval_set_id": loaded.eval_set_id,
        "path": str(loaded.path),
        "sha256": loaded.content_sha256,
        "cases": len(loaded.cases),
    }


def _case_attributes(run_id: str, case: Case) -> dict[str, AttributeValue]:
    return {
        RUN_ID: run_id,
        EVAL_SET_ID: case.eval_set_id,
        CASE_ID: case.case_id,
        EXPECTED: json.dumps(case_expected(case)),
    }


def case_expected(case: Case) -> dict[str, Any]:
    """What a case expects, as its eval-case span records it (`tracegrade.expected`, read
    by the expected_turns view); `score --evalset` gives scoring the same document."""
    turns = [
        {
            "turn_index": turn.turn_index,
            "user_text": turn.user_text,
            "final_text": turn.final_text,
            "tool_calls": [{"name": c.name, "args": c.args} for c in turn.tool_calls],
            # What ADK's LLM judges read beyond the texts and calls.
            "intermediate_texts": [r.text for r in turn.intermediate_responses],
            "rubrics": list(turn.rubrics),
        }
        for turn in case.turns
    ]
    expected: dict[str, Any] = {"turns": turns, "rubrics": list(case.rubrics)}
    if case.scenario is not None:  # what the simulator was asked to do, for its judge
        expected["scenario"] = {
            "starting_prompt": case.scenario.starting_prompt,
            "conversation_plan": case.scenario.conversation_plan,
            "user_persona": case.scenario.user_persona,
        }
    return expected
