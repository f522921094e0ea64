"""Turns rebuilt as the `Invocation`s ADK's evaluators read, from what the spans recorded.

ADK's `EvaluationGenerator.convert_events_to_eval_invocations` makes an invocation of a
turn's session events: the user's message, `final_response` (the last final-response
event's content), one `InvocationEvent` per agent event with a call, a result or text (the
final one with its content left out unless it also calls a tool), and `app_details` from
the first request each agent made (system instruction, tool declarations). The spans hold
the same: each model call's response parts, each tool call with the id ADK gave it (the id
ADK's events, and so its judges' prompts, carry), its arguments as the model sent them and
its result. tests/scoring/judging/test_invocations.py holds the prompts made from these
byte-equal to those made from ADK's own invocations of the same run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from google.adk.evaluation.app_details import AgentDetails, AppDetails
from google.adk.evaluation.eval_case import (
    IntermediateData,
    Invocation,
    InvocationEvent,
    InvocationEvents,
)
from google.adk.evaluation.eval_rubrics import Rubric
from google.genai import types

from tracegrade.scoring.judging.turns import ModelCallData, ToolCallData, TurnData

_DEFAULT_AUTHOR = "agent"


@dataclass
class _Event:
    at: int
    author: str
    content: types.Content
    model: bool


def actual_invocation(turn: TurnData) -> Invocation:
    """The invocation ADK would have made of the turn (rubrics are added by the caller)."""
    events = _events(turn)
    final = _final_event(events)
    return Invocation(
        invocation_id=turn.turn_id,
        user_content=_text_content("user", turn.user_text or ""),
        final_response=final.content if final else None,
        intermediate_data=InvocationEvents(
            invocation_events=[
                InvocationEvent(
                    author=e.author,
                    content=None if e is final and not _calls(e.content) else e.content,
                )
                for e in events
                if _worth_keeping(e.content)
            ]
        ),
        # In the order their responses reached the session, as ADK lists the agents.
        app_details=_app_details(sorted(turn.model_calls, key=lambda c: c.end_ns)),
    )


def expected_invocation(turn: TurnData) -> Invocation | None:
    """The eval set's turn as ADK loads it (texts only: what judges read of it)."""
    if turn.expected is None:
        return None
    e = turn.expected
    texts = [(_DEFAULT_AUTHOR, [types.Part(text=t)]) for t in e.intermediate_texts]
    return Invocation(
        invocation_id=f"{turn.turn_id}-expected",
        user_content=_text_content("user", e.user_text),
        final_response=_text_content("model", e.final_text) if e.final_text is not None else None,
        intermediate_data=IntermediateData(intermediate_responses=texts) if texts else None,
    )


def with_rubrics(invocation: Invocation, rubrics: Sequence[dict[str, Any]]) -> Invocation:
    """The invocation carrying the case's, then the turn's rubrics, as LocalEvalService
    copies them (a rubric id given twice is an error there too)."""
    if not rubrics:
        return invocation
    seen: set[str] = set()
    for rubric in rubrics:
        if rubric["rubric_id"] in seen:
            raise ValueError(f"Rubric with rubric_id '{rubric['rubric_id']}' already exists.")
        seen.add(rubric["rubric_id"])
    return invocation.model_copy(update={"rubrics": [Rubric.model_validate(r) for r in rubrics]})


def _text_content(role: str, text: str) -> types.Content:
    return types.Content(role=role, parts=[types.Part(text=text)])


def _events(turn: TurnData) -> list[_Event]:
    """Each model response, then the one merged event of the results of the calls it
    asked for, in the order the session recorded them."""
    events: list[_Event] = []
    for call in turn.model_calls:
        author = call.agent or _DEFAULT_AUTHOR
        tools = [t for t in turn.tool_calls if t.response_key == call.response_key]
        parts = response_parts(call, tools)
        if parts is not None:
            events.append(
                _Event(call.end_ns, author, types.Content(role="model", parts=parts), True)
            )
        if tools and all(t.result is not None for t in tools):
            results = [_function_response(t) for t in tools]
            at = max(t.end_ns for t in tools)
            events.append(_Event(at, author, types.Content(role="user", parts=results), False))
    return sorted(events, key=lambda e: e.at)


def response_parts(call: ModelCallData, tools: Sequence[ToolCallData]) -> list[types.Part] | None:
    """The parts of the model's response, function calls carrying the ids ADK gave them;
    None when the response was not recorded."""
    if isinstance(call.output, list):  # GenAI-semconv output messages (ADK schema v2)
        raw = [p for message in call.output for p in message.get("parts") or []]
        parts = [_semconv_part(p) for p in raw]
        found = [p for p in parts if p is not None]
    elif isinstance(call.output, dict) and call.output.get("content"):  # ADK v1 LlmResponse
        found = list(types.Content.model_validate(call.output["content"]).parts or [])
    else:
        return None
    return _with_call_ids(found, tools)


def _semconv_part(part: dict[str, Any]) -> types.Part | None:
    kind = part.get("type")
    if kind == "text":
        return types.Part(text=part.get("content"))
    if kind == "tool_call":
        call = types.FunctionCall(name=part.get("name"), args=part.get("arguments"))
        return types.Part(function_call=call)
    return None


def _with_call_ids(parts: list[types.Part], tools: Sequence[ToolCallData]) -> list[types.Part]:
    """The k-th call of tool N in the response is the k-th execution of N it led to."""
    ids: dict[str, list[str | None]] = {}
    for tool in tools:
        ids.setdefault(tool.name, []).append(tool.call_id)
    out = []
    for part in parts:
        call = part.function_call
        if call is not None and call.name:
            queue = ids.get(call.name)
            call_id = queue.pop(0) if queue else call.id
            part = types.Part(function_call=call.model_copy(update={"id": call_id}))
        out.append(part)
    return out


def _function_response(tool: ToolCallData) -> types.Part:
    response = tool.result if isinstance(tool.result, dict) else {"result": tool.result}
    return types.Part(
        function_response=types.FunctionResponse(id=tool.call_id, name=tool.name, response=response)
    )


def _calls(content: types.Content | None) -> bool:
    return bool(content and any(p.function_call for p in content.parts or []))


def _worth_keeping(content: types.Content) -> bool:
    """ADK keeps an event that has a call, a result, text or inline data."""
    return any(p.function_call or p.function_response or p.text or p.inline_data
               for p in content.parts or [])  # fmt: skip


def _final_event(events: list[_Event]) -> _Event | None:
    """ADK's final response: the last final-response event, preferring one with text."""
    final: _Event | None = None
    for event in events:
        parts = event.content.parts or []
        if not event.model or not parts or _calls(event.content):
            continue
        has_text = any(p.text for p in parts)
        if final is None or has_text or not any(p.text for p in final.content.parts or []):
            final = event
    return final


def _app_details(calls: Sequence[ModelCallData]) -> AppDetails | None:
    """Each agent's first request: its instructions and tool declarations. None when the
    requests were not recorded: ADK then reads no instructions and no tools."""
    agents: dict[str, AgentDetails] = {}
    for call in calls:
        author = call.agent or _DEFAULT_AUTHOR
        if author in agents:
            continue
        request = _request(call)
        if request is None:
            return None
        instructions, tools = request
        agents[author] = AgentDetails(
            name=author, instructions=instructions, tool_declarations=tools
        )
    return AppDetails(agent_details=agents) if agents else None


def _request(call: ModelCallData) -> tuple[str, list[types.Tool]] | None:
    if isinstance(call.llm_request, dict) and call.llm_request.get("config") is not None:
        config = types.GenerateContentConfig.model_validate(call.llm_request["config"])
        instruction = config.system_instruction
        text = instruction if isinstance(instruction, str) else ""
        return text, [t for t in config.tools or [] if isinstance(t, types.Tool)]
    if call.system_instructions is None and call.tool_definitions is None:
        return None
    texts = [p.get("content") or "" for p in call.system_instructions or [] if isinstance(p, dict)]
    return "\n".join(texts), _tools(call.tool_definitions or [])


def _tools(definitions: list[dict[str, Any]]) -> list[types.Tool]:
    """GenAI-semconv tool definitions as the `types.Tool`s ADK put in the request: its
    function declarations together in one tool, each other kind of tool on its own."""
    functions = [_declaration(d) for d in definitions if d.get("type") == "function"]
    tools = [types.Tool(function_declarations=functions)] if functions else []
    for d in definitions:
        if d.get("type") != "function" and d.get("type"):
            tools.append(types.Tool.model_validate({d["type"]: {}}))
    return tools


def _declaration(definition: dict[str, Any]) -> types.FunctionDeclaration:
    fields: dict[str, Any] = {"name": definition.get("name")}
    if definition.get("description") is not None:
        fields["description"] = definition["description"]
    parameters = definition.get("parameters")
    if parameters is not None:
        # Telemetry writes `parameters or parameters_json_schema`. A genai Schema spells
        # types in capitals (OBJECT), a JSON schema in lower case (object).
        kind = str(parameters.get("type", ""))
        key = "parameters" if kind.isupper() else "parameters_json_schema"
        fields[key] = parameters
    return types.FunctionDeclaration.model_validate(fields)
