"""Agents that call OpenAI through the openai client, instrumented by the OTel openai
instrumentation (opentelemetry-instrumentation-genai-openai, the successor of
opentelemetry-instrumentation-openai-v2) or by OpenInference's openai instrumentor.

Neither records a span for the tools the application runs: the calls are known only from
the model's responses (issue 26, item 5). OpenInference records messages as flattened
attributes (llm.input_messages.0.message.content ...), read as messages. Real openai client,
real instrumentations, a fake OpenAI server on 127.0.0.1; the loop is the application's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry import trace

from tests.interop.conftest import need
from tests.interop.fake_openai import FakeOpenAI, completion, tool_call
from tests.interop.views import rows, trajectory, turns
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.store import SpanWriter

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The weather in a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]
REPLIES = [
    completion(
        (120, 18),
        calls=[
            tool_call("call_1", "get_weather", city="Paris"),
            tool_call("call_2", "get_weather", city="Rome"),
        ],
    ),
    completion((170, 12), text="It is 21.5 C in Paris and 25 C in Rome."),
]
USER_TEXT = "What is the weather in Paris and Rome?"
INSTRUMENTORS = {
    "genai_semconv": "opentelemetry.instrumentation.genai.openai",
    "openinference": "openinference.instrumentation.openai",
}


@pytest.fixture(params=sorted(INSTRUMENTORS))
def instrumented(request: pytest.FixtureRequest, content_env: None) -> Iterator[str]:
    module = INSTRUMENTORS[request.param]
    need("openai", module)
    instrumentor = __import__(module, fromlist=["OpenAIInstrumentor"]).OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=trace.get_tracer_provider())
    try:
        yield request.param
    finally:
        instrumentor.uninstrument()


def _agent_loop(base_url: str) -> str:
    """The application: a model call, the tools it asked for, a second model call."""
    import openai

    # Any: the loop sends plain dicts, as applications do, not the SDK's TypedDicts.
    client: Any = openai.OpenAI(base_url=base_url, api_key="test")
    tracer = trace.get_tracer("weather_app")
    attributes = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather_agent"}
    with tracer.start_as_current_span("invoke_agent weather_agent", attributes=attributes):
        messages: list[dict[str, Any]] = [{"role": "user", "content": USER_TEXT}]
        reply = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
        asked = reply.choices[0].message.tool_calls or []
        messages.append(
            {"role": "assistant", "content": None, "tool_calls": [c.model_dump() for c in asked]}
        )
        for c in asked:
            city = json.loads(c.function.arguments)["city"]
            messages.append({"role": "tool", "tool_call_id": c.id, "content": f"sunny in {city}"})
        reply = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
        return reply.choices[0].message.content or ""


def test_tool_calls_from_the_model_response(
    instrumented: str, writer: SpanWriter, captured: BlockingSpanProcessor
) -> None:
    with FakeOpenAI(REPLIES) as server:
        answer = _agent_loop(server.base_url)
    assert captured.force_flush()
    connection = writer.connection

    [(tool_spans,)] = connection.execute(
        "SELECT count(*) FROM agent_spans WHERE op = 'tool'"
    ).fetchall()
    assert tool_spans == 0
    [turn] = turns(connection)
    assert trajectory(turn) == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Rome"}),
    ]
    calls = rows(connection, "SELECT * FROM tool_calls ORDER BY seq")
    assert [(c["seq"], c["call_id"], c["from_parts"]) for c in calls] == [
        (1, "call_1", True),
        (2, "call_2", True),
    ]
    assert calls[0]["parallel_group"] == calls[1]["parallel_group"]
    assert calls[0]["tool_offered"] is True
    # No span says whether a call failed: unknown, not 0.
    assert turn["tool_errors"] is None
    assert all(c["is_error"] is None and c["error_kind"] is None for c in calls)

    model_calls = rows(connection, "SELECT * FROM llm_calls ORDER BY seq")
    assert all(c["convention"] == instrumented for c in model_calls)
    assert [c["output_tool_calls"] for c in model_calls] == [2, 0]
    assert (turn["llm_calls"], turn["tool_calls"]) == (2, 2)
    assert (turn["input_tokens"], turn["output_tokens"]) == (290, 30)
    assert turn["user_text"] == USER_TEXT
    assert turn["final_text"] == answer == "It is 21.5 C in Paris and 25 C in Rome."
