"""Realistic ADK-shaped spans for the benchmarks: schema v2 names and attributes, sizes
like a weather agent's turns (workflow > agent > model, tools, merged marker, model)."""

from __future__ import annotations

import itertools
import json

from opentelemetry.trace import Tracer

SPANS_PER_TURN = 9  # workflow, agent, 3 model calls, 3 tools, 1 merged marker
_RESULT = json.dumps({"city": "Paris", "temp_c": 21.5, "conditions": "sunny", "humidity": 0.62})


def emit_turns(tracer: Tracer, turns: int, content: bool = True) -> None:
    """`turns` user turns, SPANS_PER_TURN spans each, through `tracer`."""
    for turn, session in zip(range(turns), itertools.cycle(range(97)), strict=False):
        _turn(tracer, turn, f"session-{session}", content)


def _turn(tracer: Tracer, turn: int, session: str, content: bool) -> None:
    ids = {"gen_ai.conversation.id": session}
    invocation = f"e-{turn:08d}-1b2c-4d5e-8f90-123456789abc"
    with (
        tracer.start_as_current_span(
            "invoke_workflow weather_agent",
            attributes={
                "gen_ai.operation.name": "invoke_workflow",
                "gen_ai.workflow.name": "weather_agent",
                **ids,
            },
        ),
        tracer.start_as_current_span(
            "invoke_agent weather_agent",
            attributes={
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": "weather_agent",
                "gen_ai.agent.description": "Answers weather questions.",
                **ids,
            },
        ),
    ):
        for call, tools in enumerate((["get_weather", "get_time"], ["convert_temperature"], [])):
            _model_call(tracer, call, invocation, ids)
            for n, tool in enumerate(tools):
                _tool_call(
                    tracer, tool, f"adk-{turn:08d}-{call}-{n}-4d5e-8f90-123456789abc", content
                )
            if len(tools) > 1:
                with tracer.start_as_current_span(
                    "execute_tool (merged)",
                    attributes={
                        "gen_ai.operation.name": "execute_tool",
                        "gen_ai.tool.name": "(merged tools)",
                        "gen_ai.tool.call.id": invocation,
                        "gcp.vertex.agent.event_id": invocation,
                    },
                ):
                    pass


def _model_call(tracer: Tracer, call: int, invocation: str, ids: dict[str, str]) -> None:
    with tracer.start_as_current_span(
        "generate_content gemini-2.5-flash",
        attributes={
            "gen_ai.operation.name": "generate_content",
            "gen_ai.request.model": "gemini-2.5-flash",
            "gen_ai.agent.name": "weather_agent",
            "gcp.vertex.agent.invocation_id": invocation,
            "gcp.vertex.agent.event_id": f"{invocation}-{call}",
            "gen_ai.provider.name": "gcp.gemini",
            "gen_ai.response.finish_reasons": ("stop",),
            "gen_ai.usage.input_tokens": 120 + 50 * call,
            "gen_ai.usage.output_tokens": 25,
            "gen_ai.usage.reasoning.output_tokens": 7,
            **ids,
        },
    ):
        pass


def _tool_call(tracer: Tracer, tool: str, call_id: str, content: bool) -> None:
    attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": tool,
        "gen_ai.tool.description": f"{tool} for a city.",
        "gen_ai.tool.type": "FunctionTool",
        "gen_ai.agent.name": "weather_agent",
        "gen_ai.tool.call.id": call_id,
        "gcp.vertex.agent.event_id": call_id[4:],
    }
    if content:
        attributes["gen_ai.tool.call.arguments"] = '{"city": "Paris"}'
        attributes["gen_ai.tool.call.result"] = _RESULT
    with tracer.start_as_current_span(f"execute_tool {tool}", attributes=attributes):
        pass
