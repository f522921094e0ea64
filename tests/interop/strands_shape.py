"""Spans exactly as Strands Agents writes them, for a weather agent's turn.

Strands cannot run here (it needs a model provider SDK and pins its own OTel), so this module
makes its spans with the OTel SDK the way its tracer does: strands-agents/sdk-python,
src/strands/telemetry/tracer.py at commit 006ad58fafd1389537fadb43a3e9a2851d229d92, with
OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental. Same instrumentation scope
(`strands.telemetry.tracer`), span names, kinds, attributes, and the
`gen_ai.client.inference.operation.details` events that carry every message (the input at a
span's start, the output at its end), in the order its agent loop makes them:

    invoke_agent weather_agent             start_agent_span / end_agent_span
      execute_event_loop_cycle             start_event_loop_cycle_span / end_...
        chat                               start_model_invoke_span / end_model_invoke_span
        execute_tool get_weather           start_tool_call_span / end_tool_call_span
      execute_event_loop_cycle
        chat
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, StatusCode

SCOPE = "strands.telemetry.tracer"
DETAILS = "gen_ai.client.inference.operation.details"
MODEL = "us.anthropic.claude-sonnet-4-20250514-v1:0"
USER_TEXT = "What is the weather in Paris?"
ANSWER = "It is 21.5 C and sunny in Paris."
USAGES = [(1_210, 54), (1_320, 17)]


def _serialize(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _common(operation: str) -> dict[str, Any]:
    return {"gen_ai.operation.name": operation, "gen_ai.provider.name": "strands-agents"}


def _start(name: str, attributes: dict[str, Any], kind: SpanKind = SpanKind.INTERNAL) -> Span:
    span = trace.get_tracer(SCOPE).start_span(name, kind=kind)
    span.set_attribute("gen_ai.event.start_time", datetime.now(UTC).isoformat())
    span.set_attributes(attributes)
    return span


def _end(span: Span, attributes: dict[str, Any] | None = None) -> None:
    span.set_attribute("gen_ai.event.end_time", datetime.now(UTC).isoformat())
    if attributes:
        span.set_attributes(attributes)
    span.set_status(StatusCode.OK)
    span.end()


def _messages_event(span: Span, key: str, messages: list[dict[str, Any]]) -> None:
    span.add_event(DETAILS, {key: _serialize(messages)})


def _usage(tokens: tuple[int, int]) -> dict[str, Any]:
    return {
        "gen_ai.usage.prompt_tokens": tokens[0],
        "gen_ai.usage.input_tokens": tokens[0],
        "gen_ai.usage.completion_tokens": tokens[1],
        "gen_ai.usage.output_tokens": tokens[1],
        "gen_ai.usage.total_tokens": sum(tokens),
    }


def _child(parent: Span, name: str, attributes: dict[str, Any]) -> Span:
    context = trace.set_span_in_context(parent)
    span = trace.get_tracer(SCOPE).start_span(name, context=context, kind=SpanKind.INTERNAL)
    span.set_attribute("gen_ai.event.start_time", datetime.now(UTC).isoformat())
    span.set_attributes(attributes)
    return span


def write_turn() -> None:
    """One turn: a model call asking for get_weather(Paris), the tool, a model call answering."""
    user = {"role": "user", "parts": [{"type": "text", "content": USER_TEXT}]}
    call = {
        "type": "tool_call",
        "name": "get_weather",
        "id": "tooluse_1",
        "arguments": {"city": "Paris"},
    }
    asked = {"role": "assistant", "parts": [{"type": "text", "content": "Let me check."}, call]}
    result = {
        "type": "tool_call_response",
        "id": "tooluse_1",
        "response": [{"text": "21.5 C, sunny"}],
    }
    attributes = _common("invoke_agent") | {
        "gen_ai.agent.name": "weather_agent",
        "gen_ai.request.model": MODEL,
        "gen_ai.agent.tools": _serialize(["get_weather"]),
    }
    agent = _start("invoke_agent weather_agent", attributes)
    _messages_event(agent, "gen_ai.input.messages", [user])

    cycle = _child(agent, "execute_event_loop_cycle", {"event_loop.cycle_id": "cycle-1"})
    _messages_event(cycle, "gen_ai.input.messages", [user])
    chat = _child(cycle, "chat", _common("chat") | {"gen_ai.request.model": MODEL})
    _messages_event(chat, "gen_ai.input.messages", [user])
    _messages_event(chat, "gen_ai.output.messages", [asked | {"finish_reason": "tool_use"}])
    _end(chat, _usage(USAGES[0]))
    tool = _child(
        cycle,
        "execute_tool get_weather",
        _common("execute_tool")
        | {"gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": "tooluse_1"},
    )
    _messages_event(
        tool,
        "gen_ai.input.messages",
        [{"role": "tool", "parts": [dict(call)]}],
    )
    _messages_event(tool, "gen_ai.output.messages", [{"role": "tool", "parts": [result]}])
    _end(tool, {"gen_ai.tool.status": "success"})
    _messages_event(cycle, "gen_ai.output.messages", [{"role": "user", "parts": [result]}])
    _end(cycle)

    history: list[dict[str, Any]] = [user, asked, {"role": "user", "parts": [result]}]
    cycle = _child(agent, "execute_event_loop_cycle", {"event_loop.cycle_id": "cycle-2"})
    _messages_event(cycle, "gen_ai.input.messages", history)
    chat = _child(cycle, "chat", _common("chat") | {"gen_ai.request.model": MODEL})
    _messages_event(chat, "gen_ai.input.messages", history)
    answer = {"role": "assistant", "parts": [{"type": "text", "content": ANSWER}]}
    _messages_event(chat, "gen_ai.output.messages", [answer | {"finish_reason": "end_turn"}])
    _end(chat, _usage(USAGES[1]))
    _end(cycle)

    _messages_event(
        agent,
        "gen_ai.output.messages",
        [answer | {"finish_reason": "end_turn"}],
    )
    total = (sum(u[0] for u in USAGES), sum(u[1] for u in USAGES))
    _end(
        agent,
        _usage(total)
        | {"gen_ai.usage.cache_read_input_tokens": 0, "gen_ai.usage.cache_write_input_tokens": 0},
    )
