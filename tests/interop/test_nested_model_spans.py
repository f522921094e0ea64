"""A model call seen by two instrumentations: ADK's model span around the OpenAI client's.

An ADK agent whose model calls OpenAI through the openai client (as LiteLLM-backed agents do),
with the OTel openai instrumentation on: ADK's generate_content span (inside v1's call_llm)
wraps the client's `chat` span, both with the same usage. One call, counted once, its tokens
once (issue 26, item 3). Real google-adk, real openai client and instrumentation, a fake
OpenAI server on 127.0.0.1.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Iterator
from typing import Any

import pytest
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from opentelemetry import trace

from tests.interop.conftest import need
from tests.interop.fake_openai import FakeOpenAI, completion, tool_call
from tests.interop.views import rows, trajectory, turns
from tests.support.adk_run import adk_settings, oracle, run_scenario
from tests.support.scenarios import Scenario, get_time, get_weather
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.store import SpanWriter

REPLIES = [
    completion((4_000, 100), calls=[tool_call("call_1", "get_weather", city="Paris")]),
    completion((648, 29), text="It is 21.5 C in Paris."),
]


class OpenAIChatLlm(BaseLlm):
    """An ADK model that asks an OpenAI-compatible server, through the openai client."""

    base_url: str = ""

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        import openai

        client: Any = openai.AsyncOpenAI(base_url=self.base_url, api_key="test")
        messages = [
            {"role": "user" if c.role == "user" else "assistant", "content": part.text}
            for c in llm_request.contents
            for part in c.parts or []
            if part.text
        ]
        reply = await client.chat.completions.create(model=self.model, messages=messages)
        message = reply.choices[0].message
        parts = [types.Part(text=message.content)] if message.content else []
        parts += [
            types.Part(
                function_call=types.FunctionCall(
                    id=c.id, name=c.function.name, args=json.loads(c.function.arguments)
                )
            )
            for c in message.tool_calls or []
        ]
        assert reply.usage is not None
        yield LlmResponse(
            content=types.Content(role="model", parts=parts),
            usage_metadata=types.GenerateContentResponseUsageMetadata(
                prompt_token_count=reply.usage.prompt_tokens,
                candidates_token_count=reply.usage.completion_tokens,
                total_token_count=reply.usage.total_tokens,
            ),
        )


@pytest.fixture
def openai_instrumented() -> Iterator[None]:
    need("openai", "opentelemetry.instrumentation.genai.openai")
    from opentelemetry.instrumentation.genai.openai import OpenAIInstrumentor

    instrumentor = OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=trace.get_tracer_provider())
    try:
        yield
    finally:
        instrumentor.uninstrument()


@pytest.mark.parametrize("schema", ["1", "2"])
def test_nested_model_span_counted_once(
    schema: str,
    openai_instrumented: None,
    content_env: None,
    writer: SpanWriter,
    captured: BlockingSpanProcessor,
) -> None:
    with FakeOpenAI(REPLIES) as server:

        def build() -> Any:
            model = OpenAIChatLlm(model="gpt-4o-mini", base_url=server.base_url)
            return LlmAgent(name="weather_agent", model=model, tools=[get_weather, get_time])

        with adk_settings(schema, content=True):
            events = run_scenario(Scenario("nested", build, ("Weather in Paris?",)))
    assert captured.force_flush()
    [adk] = oracle(events)
    connection = writer.connection

    # Both instrumentations recorded each call: two model spans a call.
    [(model_spans,)] = connection.execute(
        "SELECT count(*) FROM agent_spans WHERE op = 'llm'"
    ).fetchall()
    assert model_spans == 4
    [turn] = turns(connection)
    assert adk.inference_call_count == 2
    assert turn["llm_calls"] == adk.inference_call_count
    assert turn["total_tokens"] == adk.token_total == 4_777
    assert (turn["input_tokens"], turn["output_tokens"]) == (4_648, 129)
    assert trajectory(turn) == [("get_weather", {"city": "Paris"})]
    assert turn["final_text"] == adk.final_text
    calls = rows(connection, "SELECT seq, model, output_tool_calls FROM llm_calls ORDER BY seq")
    assert calls == [
        {"seq": 1, "model": "gpt-4o-mini", "output_tool_calls": 1},
        {"seq": 2, "model": "gpt-4o-mini", "output_tool_calls": 0},
    ]
