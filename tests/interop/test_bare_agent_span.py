"""A controller's bare invoke_agent span is not a turn (issue 26, item 4).

A controller that hands a request to an agent running elsewhere (an operator dispatching to
an agent's pod, an A2A client) records an `invoke_agent` span with nothing under it when
the trace context does not travel with the request; the agent's own spans form the turn.
The controller's span is written here with the OTel SDK as a GenAI-semconv writer writes
one (the shape issue 26 describes; not captured from a particular controller), next to a
real ADK agent's turn.
"""

from __future__ import annotations

from opentelemetry import trace

from tests.interop.views import turns
from tests.support.adk_run import adk_settings, oracle, run_scenario
from tests.support.scenarios import SCENARIOS
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.store import SpanWriter


def test_bare_controller_span_is_no_turn(
    writer: SpanWriter, captured: BlockingSpanProcessor
) -> None:
    controller = trace.get_tracer("agent-controller")
    attributes = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "weather_agent",
        "gen_ai.conversation.id": "session-1",
    }
    with controller.start_as_current_span("invoke_agent weather_agent", attributes=attributes):
        pass
    with adk_settings("2", content=True):
        events = run_scenario(SCENARIOS["parallel_calls"])
    assert captured.force_flush()

    [(agent_spans,)] = writer.connection.execute(
        "SELECT count(*) FROM agent_spans WHERE op = 'agent' AND scope_name = 'agent-controller'"
    ).fetchall()
    assert agent_spans == 1
    [adk] = oracle(events)
    [turn] = turns(writer.connection)
    assert turn["convention"] == "adk_v2"
    assert turn["llm_calls"] == adk.inference_call_count
    assert turn["final_text"] == adk.final_text


def test_adk_agent_answering_from_a_callback_is_a_turn(
    writer: SpanWriter, captured: BlockingSpanProcessor
) -> None:
    """ADK's own bare agent span (a callback answered, no model call) stays a turn."""
    from google.adk.agents import LlmAgent
    from google.genai import types

    from tests.support.scenarios import Scenario
    from tracegrade.testing import ScriptedLlm

    def answer(callback_context: object) -> types.Content:
        return types.Content(role="model", parts=[types.Part(text="Closed today.")])

    def build() -> LlmAgent:
        model = ScriptedLlm.from_responses([], model="gemini-2.5-flash")
        return LlmAgent(name="shop_agent", model=model, before_agent_callback=answer)

    with adk_settings("2", content=True):
        events = run_scenario(Scenario("callback", build, ("Are you open?",)))
    assert captured.force_flush()
    [adk] = oracle(events)
    [turn] = turns(writer.connection)
    assert (turn["llm_calls"], turn["tool_calls"]) == (0, 0)
    assert adk.final_text == "Closed today."
