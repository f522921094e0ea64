"""OpenInference's LangChain instrumentor on a LangChain tool-calling loop (a fake chat model).

LangChain's chat model spans carry flattened messages (llm.input_messages.*, read as
messages), its tool spans the tool's input string rather than the arguments the model sent:
the arguments are the model's, from its response. Real langchain-core, real instrumentor.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry import trace

from tests.interop.conftest import need
from tests.interop.views import rows, trajectory, turns
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.store import SpanWriter

pytestmark = costly  # every test here: see tests.support.tiers.costly

USER_TEXT = "What is the weather in Paris?"


@pytest.fixture
def langchain() -> Iterator[None]:
    need("langchain_core", "openinference.instrumentation.langchain")
    from openinference.instrumentation.langchain import LangChainInstrumentor

    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=trace.get_tracer_provider())
    try:
        yield
    finally:
        instrumentor.uninstrument()


def _run_agent() -> Any:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
    from langchain_core.runnables import RunnableLambda
    from langchain_core.tools import tool

    @tool
    def get_weather(city: str) -> str:
        """The weather in a city."""
        return f"sunny in {city}"

    model = GenericFakeChatModel(
        messages=iter(
            [
                AIMessage(
                    content="",
                    tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"}],
                    usage_metadata={"input_tokens": 120, "output_tokens": 18, "total_tokens": 138},
                ),
                AIMessage(
                    content="It is sunny in Paris.",
                    usage_metadata={"input_tokens": 170, "output_tokens": 12, "total_tokens": 182},
                ),
            ]
        )
    )

    def agent(question: str) -> Any:
        messages: list[BaseMessage] = [HumanMessage(question)]
        reply = model.invoke(messages)
        messages.append(reply)
        messages += [get_weather.invoke(call) for call in reply.tool_calls]
        return model.invoke(messages).content

    return RunnableLambda(agent, name="weather_agent").invoke(USER_TEXT)


def test_langchain_turn(
    langchain: None, writer: SpanWriter, captured: BlockingSpanProcessor
) -> None:
    answer = _run_agent()
    assert captured.force_flush()
    connection = writer.connection

    [(tool_input,)] = connection.execute(
        "SELECT tool_args FROM agent_spans WHERE op = 'tool'"
    ).fetchall()
    assert tool_input == "Paris"  # what the tool span says: not the arguments
    [turn] = turns(connection)
    assert turn["convention"] == "openinference"
    assert trajectory(turn) == [("get_weather", {"city": "Paris"})]
    [call] = rows(connection, "SELECT * FROM tool_calls")
    assert (call["from_parts"], call["is_error"]) == (False, False)
    assert (turn["llm_calls"], turn["tool_calls"], turn["tool_errors"]) == (2, 1, 0)
    assert (turn["input_tokens"], turn["output_tokens"]) == (290, 30)
    assert turn["user_text"] == USER_TEXT
    assert turn["final_text"] == answer == "It is sunny in Paris."
