"""pydantic-ai's own OTel instrumentation (GenAI semconv), on a real agent with FunctionModel.

A tool raising ModelRetry leaves its span without status text; the message is in the span's
exception event and in gen_ai.tool.call.result (issue 26, item 1).
"""

from __future__ import annotations

from typing import Any

from opentelemetry import trace

from tests.interop.conftest import need
from tests.interop.views import rows, trajectory, turns
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.store import SpanWriter

pytestmark = costly  # every test here: see tests.support.tiers.costly


def _run_agent() -> Any:
    from pydantic_ai import Agent, ModelRetry
    from pydantic_ai.capabilities.instrumentation import Instrumentation
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.models.instrumented import InstrumentationSettings

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        answered = sum(1 for m in messages if m.kind == "response")
        if answered == 0:
            return ModelResponse(parts=[ToolCallPart("get_weather", {"city": "Atlantis"}, "c1")])
        if answered == 1:
            return ModelResponse(parts=[ToolCallPart("get_weather", {"city": "Paris"}, "c2")])
        return ModelResponse(parts=[TextPart("It is 21.5 C in Paris.")])

    settings = InstrumentationSettings(
        tracer_provider=trace.get_tracer_provider(), include_content=True
    )
    agent = Agent(
        FunctionModel(model, model_name="scripted"),
        name="weather_agent",
        capabilities=[Instrumentation(settings)],
    )

    @agent.tool_plain
    def get_weather(city: str) -> str:
        if city == "Atlantis":
            raise ModelRetry("unknown city Atlantis")
        return "21.5 C"

    return agent.run_sync("What is the weather in Paris?")


def test_model_retry_message_is_the_tool_error(
    writer: SpanWriter, captured: BlockingSpanProcessor
) -> None:
    need("pydantic_ai")
    result = _run_agent()
    assert captured.force_flush()
    connection = writer.connection

    calls = rows(connection, "SELECT * FROM tool_calls ORDER BY seq")
    assert [(c["name"], c["is_error"], c["error_message"]) for c in calls] == [
        ("get_weather", True, "unknown city Atlantis"),
        ("get_weather", False, None),
    ]
    assert calls[0]["error_kind"] == "raised"

    [turn] = turns(connection)
    usage = result.usage
    assert turn["convention"] == "pydantic_ai"
    assert trajectory(turn) == [
        ("get_weather", {"city": "Atlantis"}),
        ("get_weather", {"city": "Paris"}),
    ]
    assert (turn["llm_calls"], turn["tool_calls"], turn["tool_errors"]) == (3, 2, 1)
    assert (turn["input_tokens"], turn["output_tokens"]) == (
        usage.input_tokens,
        usage.output_tokens,
    )
    assert turn["user_text"] == "What is the weather in Paris?"
    assert turn["final_text"] == result.output == "It is 21.5 C in Paris."
