"""`EvalCase` (file model) → `Case` (normalised), following ADK's reading rules.

Tool calls are what `google.adk.evaluation.eval_case.get_all_tool_calls` returns;
texts are what ADK's response metrics compare (non-empty text parts joined by "\\n").
"""

from __future__ import annotations

from typing import Any

from tracegrade.evalset.cases import (
    Case,
    ExpectedCall,
    ExpectedTurn,
    IntermediateResponse,
    Scenario,
    SessionSpec,
)
from tracegrade.evalset.content import Content, FunctionCall, content_text, function_calls
from tracegrade.evalset.schema import (
    ConversationScenario,
    EvalCase,
    IntermediateData,
    IntermediateDataType,
    Invocation,
    Rubric,
    SessionInput,
)

EMPTY_CONVERSATION = "conversation has no turns"


def to_case(eval_set_id: str, case: EvalCase) -> Case:
    """The normalised form of one file case."""
    turns = tuple(to_turn(i, inv) for i, inv in enumerate(case.conversation or []))
    return Case(
        eval_set_id=eval_set_id,
        case_id=case.eval_id,
        session=_session(case.session_input),
        turns=turns,
        final_session_state=dict(case.final_session_state or {}),
        scenario=_scenario(case.conversation_scenario),
        reason_not_replayable=_reason_not_replayable(case),
        rubrics=_rubrics(case.rubrics),
    )


def to_turn(index: int, invocation: Invocation) -> ExpectedTurn:
    """The normalised form of one invocation at position `index`."""
    data = invocation.intermediate_data
    return ExpectedTurn(
        turn_index=index,
        user_text=content_text(invocation.user_content) or "",
        final_text=content_text(invocation.final_response),
        tool_calls=tuple(ExpectedCall(c.name, c.args) for c in _calls(data)),
        intermediate_responses=_intermediate_responses(data),
        invocation_id=invocation.invocation_id,
        rubrics=_rubrics(invocation.rubrics),
    )


def _rubrics(rubrics: list[Rubric] | None) -> tuple[dict[str, Any], ...]:
    return tuple(r.model_dump(mode="json", exclude_none=True) for r in rubrics or [])


def _calls(data: IntermediateDataType | None) -> list[FunctionCall]:
    if data is None:
        return []
    if isinstance(data, IntermediateData):
        return list(data.tool_uses)
    return [call for event in data.invocation_events for call in function_calls(event.content)]


def _intermediate_responses(
    data: IntermediateDataType | None,
) -> tuple[IntermediateResponse, ...]:
    # The same texts ADK's LLM judges read with `include_intermediate_responses_in_final`.
    if data is None:
        return ()
    pairs: list[tuple[str, Content | None]]
    if isinstance(data, IntermediateData):
        pairs = [(author, Content(parts=parts)) for author, parts in data.intermediate_responses]
    else:
        pairs = [(event.author, event.content) for event in data.invocation_events]
    texts = [(author, content_text(content)) for author, content in pairs]
    return tuple(IntermediateResponse(author, text) for author, text in texts if text)


def _session(session: SessionInput | None) -> SessionSpec | None:
    if session is None:
        return None
    return SessionSpec(session.app_name, session.user_id, session.session_id, dict(session.state))


def _scenario(scenario: ConversationScenario | None) -> Scenario | None:
    if scenario is None:
        return None
    return Scenario(scenario.starting_prompt, scenario.conversation_plan, scenario.user_persona)


def _reason_not_replayable(case: EvalCase) -> str | None:
    if case.conversation_scenario is not None:
        return None  # played with ADK's user simulator
    if not case.conversation:
        return EMPTY_CONVERSATION
    for index, invocation in enumerate(case.conversation):
        if any(part.is_media for part in invocation.user_content.parts or []):
            # The harness sends the user's text; dropping an image would test something else.
            return f"conversation[{index}].user_content has media parts, which are not replayed"
    return None
