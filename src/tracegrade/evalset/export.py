"""Normalised cases → an ADK `*.evalset.json`, e.g. to keep production turns as new cases.

The output is what ADK itself writes (`LocalEvalSetsManager`): snake_case keys with
unset, default and None values left out. Texts become single-part messages, tool calls
`intermediate_data.tool_uses`; an `args` of `{}` is written, absent args are not.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tracegrade.evalset.cases import Case, ExpectedTurn, Scenario, SessionSpec


def eval_set_to_dict(
    eval_set_id: str,
    cases: Iterable[Case],
    *,
    name: str | None = None,
    description: str | None = None,
) -> dict[str, Any]:
    """An ADK `EvalSet` as a JSON-ready dict."""
    head = {"eval_set_id": eval_set_id, "name": name, "description": description}
    return _without_none(head) | {"eval_cases": [case_to_dict(case) for case in cases]}


def write_eval_set(path: str | Path, eval_set_id: str, cases: Iterable[Case]) -> Path:
    """Write an `*.evalset.json` file the way ADK formats it (2-space indent)."""
    path = Path(path)
    text = json.dumps(eval_set_to_dict(eval_set_id, cases), indent=2, ensure_ascii=False)
    path.write_text(text + "\n", encoding="utf-8")
    return path


def case_to_dict(case: Case) -> dict[str, Any]:
    """One ADK `EvalCase` as a dict."""
    out: dict[str, Any] = {"eval_id": case.case_id}
    if case.scenario is not None:
        out["conversation_scenario"] = _scenario(case.scenario)
    else:
        out["conversation"] = [turn_to_dict(turn) for turn in case.turns]
    if case.session is not None:
        out["session_input"] = _session(case.session)
    if case.final_session_state:
        out["final_session_state"] = case.final_session_state
    if case.rubrics:
        out["rubrics"] = list(case.rubrics)
    return out


def turn_to_dict(turn: ExpectedTurn) -> dict[str, Any]:
    """One ADK `Invocation` as a dict."""
    out: dict[str, Any] = {"user_content": _message("user", turn.user_text)}
    if turn.invocation_id:
        out = {"invocation_id": turn.invocation_id} | out
    if turn.final_text is not None:
        out["final_response"] = _message("model", turn.final_text)
    intermediate = _intermediate_data(turn)
    if intermediate:
        out["intermediate_data"] = intermediate
    if turn.rubrics:
        out["rubrics"] = list(turn.rubrics)
    return out


def _intermediate_data(turn: ExpectedTurn) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if turn.tool_calls:
        out["tool_uses"] = [
            _without_none({"name": c.name, "args": c.args}) for c in turn.tool_calls
        ]
    if turn.intermediate_responses:
        pairs = [[r.author, [{"text": r.text}]] for r in turn.intermediate_responses]
        out["intermediate_responses"] = pairs
    return out


def _message(role: str, text: str) -> dict[str, Any]:
    # An empty text stays an empty part: ADK reads "" the same way, and a reference of ""
    # (old formats without `reference`) must stay distinct from having no reference.
    return {"role": role, "parts": [{"text": text}]}


def _session(session: SessionSpec) -> dict[str, Any]:
    out: dict[str, Any] = {"app_name": session.app_name, "user_id": session.user_id}
    if session.session_id is not None:
        out["session_id"] = session.session_id
    if session.state:
        out["state"] = session.state
    return out


def _scenario(scenario: Scenario) -> dict[str, Any]:
    return _without_none(
        {
            "starting_prompt": scenario.starting_prompt,
            "conversation_plan": scenario.conversation_plan,
            "user_persona": scenario.user_persona,
        }
    )


def _without_none(values: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not None}
