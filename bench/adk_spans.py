"""ADK-shaped spans for the benchmarks, as google-adk 2.13 emits them with span content capture
on (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY`): schema v2 names and
attributes (/work/shared/reference/adk-spans.md §4 and §6), a weather agent's turn shape
(workflow > agent > model, tools, merged marker, model, tool, model).

With content on, each model call carries the system instructions, the tool definitions with
their parameter schemas, the request's messages (the session's history so far) and the
response's messages; the final answer is 1-2 KB of text. Measured (`python bench/adk_spans.py`):
9 spans a turn, ~1.7 KB of OTLP protobuf a span, 15 attributes on a model call, 9 on a tool.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from opentelemetry.trace import Tracer

SPANS_PER_TURN = 9  # workflow, agent, 3 model calls, 3 tools, 1 merged marker
MODEL = "gemini-2.5-flash"
_INSTRUCTIONS = json.dumps(
    [{"type": "text", "content": "You answer weather questions. Use the tools; be thorough."}],
    separators=(",", ":"),
)
_TOOLS = ("get_weather", "get_time", "convert_temperature")


def tool_definitions(schemas: dict[str, dict[str, Any]]) -> str:
    """`gen_ai.tool.definitions` as ADK writes it with content capture on: each tool the
    model is given, by name, with its parameter schema."""
    return json.dumps(
        [
            {
                "name": tool,
                "description": f"{tool} for a city.",
                "parameters": parameters,
                "type": "function",
            }
            for tool, parameters in schemas.items()
        ],
        separators=(",", ":"),
    )


WEATHER_TOOLS = tool_definitions(
    {
        tool: {
            "type": "OBJECT",
            "properties": {"city": {"type": "STRING"}, "unit": {"type": "STRING"}},
            "required": ["city"],
        }
        for tool in _TOOLS
    }
)
_FORECAST = (
    "the forecast for paris tomorrow is sunny with light wind and a high of twenty one degrees "
    "celsius humidity stays near sixty percent in the afternoon rain is unlikely before the "
    "weekend when clouds move in from the west temperatures fall to fifteen at night"
)
_WORDS = _FORECAST.split()

Call = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class Turn:
    """One user turn's content: the calls of each model response, then the final answer."""

    user_text: str
    responses: Sequence[Sequence[Call]]
    final_text: str
    result: dict[str, Any]
    earlier: Sequence[tuple[str, str]] = ()
    """The session's earlier exchanges (user text, answer): every model request repeats them."""
    tools: str = WEATHER_TOOLS
    """The tools every model call is given (`tool_definitions`): the ones its calls name."""


def weather_turn(index: int) -> Turn:
    """The benchmarks' default turn: two calls at once, one more, then a 1-2 KB answer."""
    city = {"city": "Paris"}
    return Turn(
        user_text=f"What is the weather in Paris, and the time there? ({index})",
        responses=[[("get_weather", city), ("get_time", city)], [("convert_temperature", city)]],
        final_text=answer_text(random.Random(index)),
        result={"city": "Paris", "temp_c": 21.5, "conditions": "sunny", "humidity": 0.62},
        earlier=[("And yesterday?", answer_text(random.Random(-index)))],
    )


def answer_text(rng: random.Random) -> str:
    """A final answer of 1-2 KB."""
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(180, 330)))


def emit_turns(tracer: Tracer, turns: int, content: bool = True) -> None:
    """`turns` user turns of the default shape, SPANS_PER_TURN spans each, through `tracer`."""
    for turn, session in zip(range(turns), itertools.cycle(range(97)), strict=False):
        emit_turn(tracer, weather_turn(turn), f"session-{session}", f"{turn:08d}", content)


def emit_turn(tracer: Tracer, turn: Turn, session: str, key: str, content: bool = True) -> None:
    """One turn's spans under the current span (a new trace when there is none)."""
    ids = {"gen_ai.conversation.id": session}
    invocation = f"e-{key}-1b2c-4d5e-8f90-123456789abc"
    workflow = {"gen_ai.operation.name": "invoke_workflow", "gen_ai.workflow.name": "weather_agent"}
    agent = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "weather_agent",
        "gen_ai.agent.description": "Answers weather questions.",
    }
    with (
        tracer.start_as_current_span(
            "invoke_workflow weather_agent", attributes={**workflow, **ids}
        ),
        tracer.start_as_current_span("invoke_agent weather_agent", attributes={**agent, **ids}),
    ):
        history: list[dict[str, Any]] = []
        for question, answer in turn.earlier:
            history += [_text_message("user", question), _text_message("assistant", answer)]
        history.append(_text_message("user", turn.user_text))
        for call, calls in enumerate([*turn.responses, []]):
            output = _output(calls, turn.final_text)
            _model_call(tracer, call, invocation, ids, history, output, turn.tools, content)
            history.append(output[0])
            for n, (tool, args) in enumerate(calls):
                call_id = f"adk-{key}-{call}-{n}-4d5e-8f90-123456789abc"
                _tool_call(tracer, tool, call_id, json.dumps(args), turn.result, content)
            if len(calls) > 1:
                _merged_marker(tracer, invocation)
            if calls:
                history.append(_responses_message(calls, turn.result))


def _model_call(
    tracer: Tracer,
    call: int,
    invocation: str,
    ids: dict[str, str],
    history: list[dict[str, Any]],
    output: list[dict[str, Any]],
    tools: str,
    content: bool,
) -> None:
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "generate_content",
        "gen_ai.request.model": MODEL,
        "gen_ai.agent.name": "weather_agent",
        "gcp.vertex.agent.invocation_id": invocation,
        "gcp.vertex.agent.event_id": f"{invocation}-{call}",
        "gen_ai.provider.name": "gcp.gemini",
        "gen_ai.response.finish_reasons": ("stop",),
        "gen_ai.usage.input_tokens": 120 + 50 * call,
        "gen_ai.usage.output_tokens": 25,
        "gen_ai.usage.reasoning.output_tokens": 7,
        **ids,
    }
    if content:
        attributes["gen_ai.system_instructions"] = _INSTRUCTIONS
        attributes["gen_ai.tool.definitions"] = tools
        attributes["gen_ai.input.messages"] = _compact(history)
        attributes["gen_ai.output.messages"] = _compact(output)
    with tracer.start_as_current_span(f"generate_content {MODEL}", attributes=attributes):
        pass


def _tool_call(
    tracer: Tracer, tool: str, call_id: str, args: str, result: dict[str, Any], content: bool
) -> None:
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
        attributes["gen_ai.tool.call.arguments"] = args  # json.dumps, default separators (ADK)
        attributes["gen_ai.tool.call.result"] = json.dumps(result)
    with tracer.start_as_current_span(f"execute_tool {tool}", attributes=attributes):
        pass


def _merged_marker(tracer: Tracer, invocation: str) -> None:
    with tracer.start_as_current_span(
        "execute_tool (merged)",
        attributes={
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "(merged tools)",
            "gen_ai.tool.description": "(merged tools)",
            "gen_ai.tool.call.id": invocation,
            "gcp.vertex.agent.event_id": invocation,
        },
    ):
        pass


def _output(calls: Sequence[Call], final_text: str) -> list[dict[str, Any]]:
    parts = [
        {"type": "tool_call", "id": f"{tool}_{n}", "name": tool, "arguments": args}
        for n, (tool, args) in enumerate(calls)
    ] or [{"type": "text", "content": final_text}]
    return [{"role": "assistant", "parts": parts, "finish_reason": "stop"}]


def _responses_message(calls: Sequence[Call], result: dict[str, Any]) -> dict[str, Any]:
    parts = [
        {"type": "tool_call_response", "id": f"{tool}_{n}", "response": result}
        for n, (tool, _) in enumerate(calls)
    ]
    return {"role": "user", "parts": parts}


def _text_message(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"type": "text", "content": text}]}


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _measure(turns: int = 200) -> None:
    """Print the spans' average OTLP size and attribute count."""
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    emit_turns(provider.get_tracer("gcp.vertex.agent", "2.13.0"), turns)
    spans = memory.get_finished_spans()
    size = len(encode_spans(spans).SerializeToString())
    attributes = sum(len(s.attributes or {}) for s in spans)
    models = [s for s in spans if s.name.startswith("generate_content")]
    final = [json.loads(str((s.attributes or {})["gen_ai.output.messages"])) for s in models[2::3]]
    answer = sum(len(f[0]["parts"][0]["content"]) for f in final) / len(final)
    per_model = sum(len(s.attributes or {}) for s in models) / len(models)
    print(
        f"{len(spans)} spans: {size / len(spans):,.0f} B of OTLP protobuf and "
        f"{attributes / len(spans):.1f} attributes a span ({per_model:.0f} on a model call); "
        f"final answers {answer:,.0f} chars"
    )


if __name__ == "__main__":
    _measure()
