"""Tool calls without arguments score as ADK scores them, through a real agent run.

Gemini calls a tool without parameters with no `args` at all; ADK's evaluator compares
that None with the expected call's args, so `{"name": "lookup"}` matches (1.0). The
execute_tool span records the call's arguments as `{}` (ADK runs the tool with `args or
{}`), so spans cannot tell None from `{}`. tracegrade reads both as "no arguments": it
agrees with ADK whenever the model and the eval set spell it alike, and scores 1.0 where ADK
tells them apart (cases `expected_empty` and `model_sent_empty` below, documented in
docs/metrics.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from google.adk.agents import LlmAgent
from google.adk.evaluation.local_eval_sets_manager import load_eval_set_from_file

from tests.support.adk_oracle import TRAJECTORY, adk_replay, adk_scores
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.harness import RunOptions, plan_run
from tracegrade.harness.run import execute
from tracegrade.scoring import Selection, available_metrics, parse_config, score
from tracegrade.store import SpanWriter
from tracegrade.testing import ScriptedLlm


def lookup() -> dict[str, Any]:
    """Look everything up."""
    return {"found": True}


def find(city: str) -> dict[str, Any]:
    """Find a city."""
    return {"city": city}


SCRIPT: dict[str, list[dict[str, Any]]] = {
    "without args": [
        {"tool_calls": [{"name": "lookup", "args": None}]},
        {"tool_calls": [{"name": "find", "args": {"city": "Paris"}}]},
        {"text": "Found."},
    ],
    "with empty args": [{"tool_calls": [{"name": "lookup", "args": {}}]}, {"text": "Found."}],
}
AGENT = LlmAgent(name="finder", model=ScriptedLlm.by_user_text(SCRIPT), tools=[lookup, find])

FIND = {"name": "find", "args": {"city": "Paris"}}
CASES: dict[str, list[tuple[str, list[dict[str, Any]]]]] = {
    "no_args_both": [("without args", [{"name": "lookup"}, FIND])],
    "empty_args_both": [("with empty args", [{"name": "lookup", "args": {}}])],
    "two_turns": [
        ("without args", [{"name": "lookup"}, FIND]),
        ("with empty args", [{"name": "lookup", "args": {}}]),
    ],
    "expected_empty": [("without args", [{"name": "lookup", "args": {}}, FIND])],
    "model_sent_empty": [("with empty args", [{"name": "lookup"}])],
}
SPANS_CANNOT_TELL = {"expected_empty", "model_sent_empty"}


def _eval_set(folder: Path) -> Path:
    cases = [
        {
            "eval_id": case_id,
            "conversation": [
                {
                    "user_content": {"parts": [{"text": text}]},
                    "intermediate_data": {"tool_uses": calls},
                }
                for text, calls in turns
            ],
        }
        for case_id, turns in CASES.items()
    ]
    path = folder / "no_args.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "no_args", "eval_cases": cases}))
    return path


@pytest.fixture(scope="module")
def eval_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _eval_set(tmp_path_factory.mktemp("no_args"))


def _ours(
    eval_set: Path, writer: SpanWriter, captured: BlockingSpanProcessor, match_type: str
) -> dict[tuple[str, int | None], float]:
    plan = plan_run(
        RunOptions(eval_sets=[str(eval_set)], agent="tests.scoring.test_no_args_parity:AGENT")
    )
    run_id = execute(plan).run_id
    assert captured.force_flush()
    specs = available_metrics()
    config = parse_config(
        {"criteria": {TRAJECTORY: {"threshold": 1.0, "match_type": match_type}}}, specs
    )
    scoring = score(writer.connection, Selection(run_id=run_id), config, specs).scoring_id
    rows = writer.connection.execute(
        "SELECT case_id, turn_index, score FROM scores WHERE scoring_id = ? AND metric = ? "
        "AND level IN ('turn', 'case')",
        [scoring, TRAJECTORY],
    ).fetchall()
    return {(case, turn): value for case, turn, value in rows}


@pytest.mark.parametrize("match_type", ["EXACT", "IN_ORDER", "ANY_ORDER"])
def test_calls_without_arguments_score_as_in_adk(
    eval_set: Path, writer: SpanWriter, captured: BlockingSpanProcessor, match_type: str
) -> None:
    ours = _ours(eval_set, writer, captured, match_type)
    for case in load_eval_set_from_file(str(eval_set), "no_args").eval_cases:
        adk = adk_scores(
            TRAJECTORY, {"match_type": match_type}, adk_replay(AGENT, case), case.conversation or []
        )
        mine = [ours[(case.eval_id, i)] for i in range(len(adk.turns))]
        if case.eval_id in SPANS_CANNOT_TELL:
            # ADK tells None from {}; the span cannot: the call has no arguments either way.
            assert (adk.turns, adk.case) == ([0.0], 0.0)
            assert (mine, ours[(case.eval_id, None)]) == ([1.0], 1.0)
        else:
            assert (mine, ours[(case.eval_id, None)]) == (adk.turns, adk.case), case.eval_id
            assert adk.case == 1.0
