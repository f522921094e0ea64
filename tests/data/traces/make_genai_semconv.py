#!/usr/bin/env python3
"""Generate `genai_semconv_a.otlp.jsonl`: scenario (a) under plain OTel GenAI semconv.

No ADK. A minimal "generic framework" agent loop (this file) runs the weather agent
of make_adk_fixtures.py scenario (a) with the real `openai` client against a fake
OpenAI Chat Completions server on 127.0.0.1 (this file; it replays canned
responses, no network):

  * `chat {model}` spans (kind CLIENT) come from the real instrumentor
    `opentelemetry-instrumentation-genai-openai` 1.3b0 (OpenAIInstrumentor; the
    successor of opentelemetry-instrumentation-openai-v2, which emits the latest
    GenAI semconv by default), run with
    OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY;
  * the `invoke_agent {agent}` span and the `execute_tool {tool}` spans come from
    the official `opentelemetry-util-genai` TelemetryHandler
    (`invoke_local_agent`, `tool`), called by the loop below the way a framework
    instrumentation calls it. The loop decides what to put on them (agent name,
    conversation id, messages, tool call ids/args/results).

Usage (in the separate venv described in README.md):
    python tests/data/traces/make_genai_semconv.py
"""

from __future__ import annotations

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))  # the repository, for tests.data.traces.otlp_json

NAME = "genai_semconv_a"
AGENT = "weather_agent"
MODEL = "gpt-4o-mini"
RESPONSE_MODEL = "gpt-4o-mini-2024-07-18"
SESSION_ID = "session-genai-semconv-a"
USER_TEXT = "What is the weather in Paris, in Fahrenheit, and what time is it there?"
SYSTEM = "Answer weather questions using the tools."
PORT = 47811  # fixed, so server.port is the same on every run


def _call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }


# The same three model calls and token counts as ADK scenario (a). OpenAI counts
# reasoning tokens inside completion_tokens, so completion = candidates + thoughts.
RESPONSES: list[dict[str, Any]] = [
    {
        "message": {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                _call("call_0001", "get_weather", {"city": "Paris"}),
                _call("call_0002", "get_time", {"city": "Paris"}),
            ],
        },
        "finish_reason": "tool_calls",
        "usage": {
            "prompt_tokens": 120,
            "completion_tokens": 25,
            "total_tokens": 145,
            "completion_tokens_details": {"reasoning_tokens": 7},
        },
    },
    {
        "message": {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                _call("call_0003", "convert_temperature", {"celsius": 21.5, "to": "F"}),
            ],
        },
        "finish_reason": "tool_calls",
        "usage": {
            "prompt_tokens": 170,
            "completion_tokens": 17,
            "total_tokens": 187,
            "prompt_tokens_details": {"cached_tokens": 64},
            "completion_tokens_details": {"reasoning_tokens": 5},
        },
    },
    {
        "message": {"role": "assistant", "content": "It is 70.7 F in Paris at 14:00."},
        "finish_reason": "stop",
        "usage": {
            "prompt_tokens": 210,
            "completion_tokens": 21,
            "total_tokens": 231,
            "completion_tokens_details": {"reasoning_tokens": 0},
        },
    },
]


class FakeOpenAI(BaseHTTPRequestHandler):
    """POST /v1/chat/completions -> the next canned response."""

    served = 0
    lock = threading.Lock()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        with self.lock:
            n = FakeOpenAI.served
            FakeOpenAI.served += 1
        canned = RESPONSES[n]
        body = json.dumps(
            {
                "id": f"chatcmpl-{n + 1:04d}",
                "object": "chat.completion",
                "created": 1_767_225_600,
                "model": RESPONSE_MODEL,
                "system_fingerprint": "fp_fixture",
                "choices": [
                    {
                        "index": 0,
                        "message": canned["message"],
                        "finish_reason": canned["finish_reason"],
                        "logprobs": None,
                    }
                ],
                "usage": canned["usage"],
            }
        ).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


# ----------------------------------------------------------------- the tools ----


def get_weather(city: str) -> dict[str, Any]:
    """Returns the current weather for a city."""
    return {"city": city, "temp_c": 21.5, "conditions": "sunny"}


def get_time(city: str) -> dict[str, Any]:
    """Returns the local time in a city."""
    return {"city": city, "time": "14:00"}


def convert_temperature(celsius: float, to: str) -> dict[str, Any]:
    """Converts a Celsius temperature to Fahrenheit ("F") or Kelvin ("K")."""
    value = celsius * 9 / 5 + 32 if to == "F" else celsius + 273.15
    return {"value": round(value, 1), "unit": to}


TOOLS = {f.__name__: f for f in (get_weather, get_time, convert_temperature)}
TOOL_SCHEMAS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": get_weather.__doc__,
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_time",
            "description": get_time.__doc__,
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "convert_temperature",
            "description": convert_temperature.__doc__,
            "parameters": {
                "type": "object",
                "properties": {"celsius": {"type": "number"}, "to": {"type": "string"}},
                "required": ["celsius", "to"],
            },
        },
    },
]


def main() -> int:
    os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "SPAN_ONLY"

    from openai import OpenAI
    from opentelemetry import trace
    from opentelemetry.instrumentation.genai.openai import OpenAIInstrumentor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.util.genai.handler import TelemetryHandler
    from opentelemetry.util.genai.types import InputMessage, OutputMessage, TextPart

    from tests.data.traces.otlp_json import (
        SequentialIds,
        group_by_trace,
        rebase_timestamps,
        to_otlp_json,
        write_jsonl,
    )

    provider = TracerProvider(
        resource=Resource.create(
            {"service.name": "weather_app", "service.instance.id": "fixture-instance-1"}
        ),
        id_generator=SequentialIds(NAME),
    )
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    OpenAIInstrumentor().instrument(tracer_provider=provider)
    # The "framework": its own instrumentation scope, as a framework instrumentation would.
    handler = TelemetryHandler(
        tracer_provider=provider,
        instrumentation_scope_name="weather_framework.instrumentation",
        instrumentation_scope_version="0.1.0",
    )

    server = ThreadingHTTPServer(("127.0.0.1", PORT), FakeOpenAI)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    # Any: the loop sends plain dicts, as applications do (type-checked against the openai
    # package where the `interop` extra installs it).
    client: Any = OpenAI(
        base_url=f"http://127.0.0.1:{PORT}/v1", api_key="fixture-key", max_retries=0
    )

    trajectory: list[dict[str, Any]] = []
    call_ids: list[str] = []
    usage = {"input": 0, "output": 0}
    calls = 0
    final = None
    try:
        with handler.invoke_local_agent(
            agent_name=AGENT, request_model=MODEL, conversation_id=SESSION_ID
        ) as agent:
            agent.agent_description = "Answers weather questions."
            agent.input_messages = [InputMessage(role="user", parts=[TextPart(content=USER_TEXT)])]
            messages: list[dict[str, Any]] = [
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": USER_TEXT},
            ]
            while True:
                response = client.chat.completions.create(
                    model=MODEL, messages=messages, tools=TOOL_SCHEMAS
                )
                calls += 1
                usage["input"] += response.usage.prompt_tokens
                usage["output"] += response.usage.completion_tokens
                choice = response.choices[0]
                tool_calls = choice.message.tool_calls or []
                if not tool_calls:
                    final = choice.message.content
                    break
                messages.append(choice.message.model_dump(exclude_none=True))
                for call in tool_calls:
                    args = json.loads(call.function.arguments)
                    trajectory.append({"name": call.function.name, "args": args})
                    call_ids.append(call.id)
                    fn = TOOLS[call.function.name]
                    with handler.tool(
                        call.function.name, tool_type="function", agent_name=AGENT
                    ) as tool:
                        tool.tool_call_id = call.id
                        tool.tool_description = fn.__doc__
                        tool.arguments = args
                        result = fn(**args)
                        tool.tool_result = result
                    messages.append(
                        {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)}
                    )
            agent.output_messages = [
                OutputMessage(
                    role="assistant", parts=[TextPart(content=final or "")], finish_reason="stop"
                )
            ]
            agent.input_tokens = usage["input"]
            agent.output_tokens = usage["output"]
    finally:
        server.shutdown()

    provider.force_flush()
    spans = exporter.get_finished_spans()
    requests = [to_otlp_json(group) for group in group_by_trace(spans)]
    rebase_timestamps(requests)
    write_jsonl(HERE / f"{NAME}.otlp.jsonl", requests)
    expected = {
        "fixture": f"{NAME}.otlp.jsonl",
        "session_id": SESSION_ID,
        "derived_with": (
            "the generator's own agent loop (no ADK involved): what it sent and received"
        ),
        "turns": [
            {
                "user_text": USER_TEXT,
                "final_response": final,
                "tool_trajectory": trajectory,
                "tool_call_ids": call_ids,
                "tool_call_count": float(len(trajectory)),
                "inference_call_count": float(calls),
                "token_usage": {
                    "input": usage["input"],
                    "output": usage["output"],
                    "total": usage["input"] + usage["output"],
                },
            }
        ],
    }
    (HERE / f"{NAME}.expected.json").write_text(json.dumps(expected, indent=2) + "\n")
    print(f"{NAME}: {len(spans)} spans, {len(requests)} traces")
    return 0


if __name__ == "__main__":
    sys.exit(main())
