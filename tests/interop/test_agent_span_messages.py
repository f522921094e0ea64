"""Messages carried on the agent span, not on model-call spans (issue 26, item 7).

A framework instrumented with the OTel GenAI utilities (opentelemetry-util-genai's
TelemetryHandler, as framework instrumentations call it) records the agent's input and output
messages on its invoke_agent span and its tools on execute_tool spans; its model client is
not instrumented, so no model-call span carries the texts.
"""

from __future__ import annotations

from opentelemetry import trace

from tests.interop.conftest import need
from tests.interop.views import rows, trajectory, turns
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.store import SpanWriter

pytestmark = costly  # every test here: see tests.support.tiers.costly

USER_TEXT = "What is the weather in Paris?"
ANSWER = "It is 21.5 C in Paris."


def _run_framework() -> None:
    from opentelemetry.util.genai.handler import TelemetryHandler
    from opentelemetry.util.genai.types import InputMessage, OutputMessage, TextPart

    handler = TelemetryHandler(
        tracer_provider=trace.get_tracer_provider(),
        instrumentation_scope_name="weather_framework.instrumentation",
    )
    with handler.invoke_local_agent(
        agent_name="weather_agent", request_model="gpt-4o-mini", conversation_id="session-7"
    ) as agent:
        agent.input_messages = [InputMessage(role="user", parts=[TextPart(content=USER_TEXT)])]
        with handler.tool("get_weather", tool_type="function", agent_name="weather_agent") as tool:
            tool.tool_call_id = "call_1"
            tool.arguments = {"city": "Paris"}
            tool.tool_result = {"celsius": 21.5}
        agent.output_messages = [
            OutputMessage(role="assistant", parts=[TextPart(content=ANSWER)], finish_reason="stop")
        ]


def test_texts_from_the_agent_span(
    content_env: None, writer: SpanWriter, captured: BlockingSpanProcessor
) -> None:
    need("opentelemetry.util.genai.handler")
    _run_framework()
    assert captured.force_flush()
    connection = writer.connection

    [(model_spans,)] = connection.execute(
        "SELECT count(*) FROM agent_spans WHERE op = 'llm'"
    ).fetchall()
    assert model_spans == 0
    [agent] = rows(connection, "SELECT * FROM agent_spans WHERE op = 'agent'")
    assert agent["input_messages"] is not None
    assert agent["output_messages"] is not None
    [turn] = turns(connection)
    assert turn["convention"] == "genai_semconv"
    assert turn["session_id"] == "session-7"
    assert turn["user_text"] == USER_TEXT
    assert turn["final_text"] == ANSWER
    assert trajectory(turn) == [("get_weather", {"city": "Paris"})]
