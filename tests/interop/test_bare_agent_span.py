"""Spans around an agent's own that are not a turn (issue 26, item 4).

kagent runs an ADK agent behind an A2A server in its pod: `kagent_adk_a.otlp.jsonl`
(tests/data/traces/kagent/) was captured from kagent's real Python runtime by
tests/data/traces/kagent/make_kagent.py: `kagent.adk.KAgentApp` of kagent-adk 0.10.4
(`kagent/adk/_a2a.py`, built with `local=True`) with kagent-core 0.10.4's
`configure_tracing` (`kagent/core/tracing/_utils.py`: FastAPI and HTTPX instrumentation,
and `_span_processor.py`'s `KagentAttributesSpanProcessor`, which puts `kagent.user_id`,
`gen_ai.task.id` and `gen_ai.conversation.id` on every span started while
`kagent/adk/_agent_executor.py` runs a request), google-adk 1.39.1, a2a-sdk 0.3.26, a
scripted model, two A2A `message/send` requests in one context. Around ADK's spans each
trace has FastAPI's `POST /` server span (the root), its `http receive`/`http send`
spans, and a2a-sdk's own spans, some carrying kagent's GenAI attributes. kagent's Python
runtime starts no `invoke_agent` span of its own (its sources start none).

A controller that hands a request to an agent running elsewhere without the trace
context may record an `invoke_agent` span with nothing under it; that shape is written
with the OTel SDK as a GenAI-semconv writer writes one: no producer of it could be run
here (kagent's controller is Go, outside its Python packages).
"""

from __future__ import annotations

from opentelemetry import trace

from tests.interop.views import trajectory, turns
from tests.support.adk_run import adk_settings, oracle, run_scenario
from tests.support.paths import DATA
from tests.support.scenarios import SCENARIOS
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.ingest import ingest_file
from tracegrade.store import SpanWriter

pytestmark = costly  # every test here: see tests.support.tiers.costly

KAGENT = DATA / "traces" / "kagent" / "kagent_adk_a.otlp.jsonl"


def test_kagent_a2a_requests_are_one_turn_each(writer: SpanWriter) -> None:
    """kagent's real spans (see above): the A2A server's and a2a-sdk's spans around
    ADK's, kagent's GenAI attributes on some of them, are no turn; each request is one."""
    assert ingest_file(KAGENT, writer).bad_records == []
    [(around, with_kagent_ids)] = writer.connection.execute(
        "SELECT count(*), count(*) FILTER (s.attributes->>'gen_ai.conversation.id' IS NOT NULL)"
        " FROM spans s WHERE s.scope_name <> 'gcp.vertex.agent'"
    ).fetchall()
    assert (around, with_kagent_ids) == (86, 14)  # the shape this test is about
    first, second = turns(writer.connection)
    assert [(t["session_id"], t["convention"]) for t in (first, second)] == [
        ("session-kagent-adk-a", "adk_v1")
    ] * 2
    assert (first["user_text"], first["final_text"]) == (
        "What is the weather in Paris?",
        "It is 21.5 C and sunny in Paris.",
    )
    assert trajectory(first) == [("get_weather", {"city": "Paris"})]
    assert trajectory(second) == [("get_time", {"city": "Paris"})]
    # The scripted model's counts (make_kagent.py): 120+160 in, 9+12 out.
    assert (first["llm_calls"], first["input_tokens"], first["output_tokens"]) == (2, 280, 21)
    assert (second["llm_calls"], second["input_tokens"], second["output_tokens"]) == (2, 420, 18)


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
