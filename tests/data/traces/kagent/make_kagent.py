#!/usr/bin/env python3
"""Generate `kagent_adk_a.otlp.jsonl`: the spans kagent's Python ADK runtime emits.

A real `kagent.adk.KAgentApp` (kagent-adk 0.10.4: the A2A FastAPI app kagent runs in an
agent's pod, built with `local=True` so sessions and tasks stay in memory instead of
kagent's controller) serves an ADK `LlmAgent` whose model is scripted (this file, no
network). Tracing is set up by kagent's own `kagent.core.configure_tracing(name,
namespace, app)`, as `kagent.adk.cli` calls it, with `OTEL_TRACING_ENABLED=true`: its
resource and span processors (on a TracerProvider set first, for sequential ids), its
`KagentAttributesSpanProcessor` (which puts `kagent.user_id`,
`gen_ai.task.id` and `gen_ai.conversation.id` on every span started while the executor
runs a request) and its FastAPI and HTTPX instrumentation. Its OTLP exporter points at a
closed port on 127.0.0.1; the spans are taken from an in-memory exporter on the same
provider. Timestamps are rebased and random ids (a2a task and message ids, ADK's) made
placeholders as for the other fixtures (../otlp_json.py); relative timing is the run's.

Two A2A `message/send` requests in one context (= one ADK session), as kagent's UI or
controller sends them, no trace context with them. Each is one trace.

Usage (in a throwaway venv: kagent-adk pins google-adk<2 and OTel 1.38):
    python3 -m venv /tmp/venv-kagent
    /tmp/venv-kagent/bin/pip install kagent-adk==0.10.4 "a2a-sdk[http-server]>=0.3.26,<0.4" \
        opentelemetry-instrumentation-fastapi==0.59b0 opentelemetry-instrumentation-httpx==0.59b0
    /tmp/venv-kagent/bin/python tests/data/traces/kagent/make_kagent.py
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3]))  # the repository, for tests.data.traces.otlp_json

NAME = "kagent_adk_a"
OUT = HERE / f"{NAME}.otlp.jsonl"
CONTEXT_ID = "session-kagent-adk-a"
SERVICE = "weather-agent"
TURNS = (
    ("What is the weather in Paris?", "It is 21.5 C and sunny in Paris."),
    ("And what time is it there?", "It is 14:00 in Paris."),
)

for key in [k for k in os.environ if k.startswith(("OTEL_", "ADK_", "GOOGLE_"))]:
    del os.environ[key]
os.environ.update(
    {
        "OTEL_TRACING_ENABLED": "true",
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:9/v1/traces",  # closed
        "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "100",
    }
)


def get_weather(city: str) -> dict[str, Any]:
    """The weather in a city."""
    return {"city": city, "celsius": 21.5, "sky": "sunny"}


def get_time(city: str) -> dict[str, Any]:
    """The local time in a city."""
    return {"city": city, "time": "14:00"}


def _model() -> Any:
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_response import LlmResponse
    from google.genai import types

    def call(name: str, args: dict[str, Any]) -> types.Part:
        return types.Part(function_call=types.FunctionCall(name=name, args=args))

    script = [
        [call("get_weather", {"city": "Paris"})],
        [types.Part(text=TURNS[0][1])],
        [call("get_time", {"city": "Paris"})],
        [types.Part(text=TURNS[1][1])],
    ]
    usage = [(120, 9), (160, 12), (190, 8), (230, 10)]

    class ScriptedModel(BaseLlm):
        """The next scripted response per model call, with its token counts."""

        calls: int = 0

        async def generate_content_async(
            self, llm_request: Any, stream: bool = False
        ) -> AsyncGenerator[LlmResponse, None]:
            index = self.calls
            self.calls += 1
            prompt, candidates = usage[index]
            yield LlmResponse(
                content=types.Content(role="model", parts=script[index]),
                usage_metadata=types.GenerateContentResponseUsageMetadata(
                    prompt_token_count=prompt,
                    candidates_token_count=candidates,
                    total_token_count=prompt + candidates,
                ),
            )

    return ScriptedModel(model="gemini-2.5-flash")


async def _send(client: Any, number: int, text: str) -> dict[str, Any]:
    body = {
        "jsonrpc": "2.0",
        "id": f"request-{number}",
        "method": "message/send",
        "params": {
            "message": {
                "kind": "message",
                "role": "user",
                "messageId": f"message-{number}",
                "contextId": CONTEXT_ID,
                "parts": [{"kind": "text", "text": text}],
            }
        },
    }
    reply = await client.post("/", json=body)
    reply.raise_for_status()
    answer: dict[str, Any] = reply.json()
    assert "result" in answer, answer
    return answer


async def _run() -> list[Any]:
    import httpx
    from a2a.types import AgentCapabilities, AgentCard
    from google.adk.agents import LlmAgent
    from kagent.adk import KAgentApp
    from kagent.core import configure_tracing
    from opentelemetry import trace
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from tests.data.traces.otlp_json import SequentialIds

    model = _model()
    card = AgentCard(
        name="weather_agent",
        description="Answers weather questions.",
        url="http://weather-agent.kagent:8080",
        version="0.1.0",
        capabilities=AgentCapabilities(streaming=False),
        default_input_modes=["text"],
        default_output_modes=["text"],
        skills=[],
    )

    def root_agent() -> LlmAgent:
        return LlmAgent(
            name="weather_agent",
            model=model,
            instruction="Answer weather questions using the tools.",
            tools=[get_weather, get_time],
        )

    # kagent's own resource (kagent/core/tracing/_utils.py), on a provider made here only
    # for reviewable ids; configure_tracing then adds to it the processors it would add to
    # one of its own (its branch for a provider already set) and instruments the app.
    resource = Resource.create({"service.name": SERVICE, "service.namespace": "kagent"})
    provider = TracerProvider(resource=resource, id_generator=SequentialIds(NAME))
    memory = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    trace.set_tracer_provider(provider)
    app = KAgentApp(root_agent, card, "http://127.0.0.1:9", "weather_agent").build(local=True)
    configure_tracing(SERVICE, "kagent", app)  # as kagent.adk.cli does

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://weather-agent") as client:
        for number, (text, _) in enumerate(TURNS, start=1):
            await _send(client, number, text)
    return list(memory.get_finished_spans())


def main() -> None:
    from tests.data.traces.otlp_json import (
        Placeholders,
        group_by_trace,
        rebase_timestamps,
        to_otlp_json,
        write_jsonl,
    )

    spans = asyncio.run(_run())
    requests = [to_otlp_json(group) for group in group_by_trace(spans)]
    rebase_timestamps(requests)
    placeholders = Placeholders()
    text = placeholders.apply("\n".join(json.dumps(r) for r in requests))
    write_jsonl(OUT, [json.loads(line) for line in text.splitlines()])
    names = sorted({s.name for s in spans})
    print(f"{OUT}: {len(spans)} spans in {len(requests)} traces: {names}")
    os._exit(0)  # the batch exporter's retries to the closed port are not waited for


if __name__ == "__main__":
    main()
