"""Read eval-set files with ADK's own loaders and project both sides to plain data.

The projection is what the harness and scorers consume: per case the session, and per
turn the user text, the reference text, the tool calls (name, args) and the intermediate
texts. ADK's side uses ADK's own helpers wherever one exists (`get_all_tool_calls`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from google.adk.evaluation.agent_evaluator import AgentEvaluator
from google.adk.evaluation.eval_case import (
    EvalCase as AdkEvalCase,
)
from google.adk.evaluation.eval_case import (
    IntermediateData as AdkIntermediateData,
)
from google.adk.evaluation.eval_case import (
    Invocation as AdkInvocation,
)
from google.adk.evaluation.eval_case import get_all_tool_calls
from google.adk.evaluation.eval_config import EvalConfig as AdkEvalConfig
from google.adk.evaluation.eval_set import EvalSet as AdkEvalSet
from google.adk.evaluation.local_eval_sets_manager import load_eval_set_from_file
from google.genai import types as genai_types

from tracegrade.evalset import Case, ExpectedTurn


def load_with_adk(path: Path) -> AdkEvalSet:
    """Load a file the way ADK's entry point for that file kind does.

    `*.test.json` goes through AgentEvaluator (with the `initial.session.json` beside it,
    as ADK's own suites pass it); anything else through `adk eval`'s loader.
    """
    if path.name.endswith(".test.json"):
        session_file = path.parent / "initial.session.json"
        session = AgentEvaluator._get_initial_session(
            str(session_file) if session_file.is_file() else None
        )
        return AgentEvaluator._load_eval_set_from_file(
            str(path), AdkEvalConfig(criteria={}), session
        )
    return load_eval_set_from_file(str(path), path.name)


def _text(content: genai_types.Content | None) -> str | None:
    # ADK's final_response_match_v1._get_text_from_content, except None stays None so
    # "no reference" and "empty reference" remain distinguishable in the comparison.
    if content is None:
        return None
    return "\n".join(part.text for part in content.parts or [] if part.text)


def _adk_intermediate(invocation: AdkInvocation) -> list[tuple[str, str]]:
    data = invocation.intermediate_data
    if data is None:
        return []
    pairs: list[tuple[str, genai_types.Content | None]]
    if isinstance(data, AdkIntermediateData):
        pairs = [(a, genai_types.Content(parts=p)) for a, p in data.intermediate_responses]
    else:
        pairs = [(event.author, event.content) for event in data.invocation_events]
    return [(author, text) for author, c in pairs if (text := _text(c))]


def project_adk_case(case: AdkEvalCase) -> dict[str, Any]:
    session = case.session_input
    turns = [
        {
            "user_text": _text(inv.user_content),
            "final_text": _text(inv.final_response),
            "tool_calls": [(c.name, c.args) for c in get_all_tool_calls(inv.intermediate_data)],
            "intermediate": _adk_intermediate(inv),
        }
        for inv in case.conversation or []
    ]
    return {
        "session": None
        if session is None
        else (session.app_name, session.user_id, session.session_id, session.state),
        "turns": turns,
        "scenario": None
        if case.conversation_scenario is None
        else (
            case.conversation_scenario.starting_prompt,
            case.conversation_scenario.conversation_plan,
        ),
        "final_session_state": case.final_session_state or {},
    }


def _project_turn(turn: ExpectedTurn) -> dict[str, Any]:
    return {
        "user_text": turn.user_text,
        "final_text": turn.final_text,
        "tool_calls": [(call.name, call.args) for call in turn.tool_calls],
        "intermediate": [(r.author, r.text) for r in turn.intermediate_responses],
    }


def project_case(case: Case) -> dict[str, Any]:
    session = case.session
    return {
        "session": None
        if session is None
        else (session.app_name, session.user_id, session.session_id, session.state),
        "turns": [_project_turn(turn) for turn in case.turns],
        "scenario": None
        if case.scenario is None
        else (case.scenario.starting_prompt, case.scenario.conversation_plan),
        "final_session_state": case.final_session_state,
    }


DATA_DIR = Path(__file__).resolve().parents[1] / "data" / "evalsets"
VALID_DIR = DATA_DIR / "valid"
INVALID_DIR = DATA_DIR / "invalid"
VALID_FILES = sorted(
    p for p in VALID_DIR.rglob("*.json") if p.name.endswith((".evalset.json", ".test.json"))
)
