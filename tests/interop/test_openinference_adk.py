"""OpenInference's google-adk instrumentor on a real ADK agent (scripted model).

Under ADK telemetry schema v2, OpenInference relabels ADK's invoke_agent span as the LLM span
and every model call of the agent overwrites its token counts: the span holds the last
call's numbers. The views must then say NULL for the turn's model calls and tokens, never
those numbers (issue 26, item 2). Under schema v1 each call has its own span: exact counts.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry import trace

from tests.interop.conftest import need
from tests.interop.views import rows, turns
from tests.support.adk_run import adk_settings, oracle, run_scenario
from tests.support.scenarios import SCENARIOS
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.store import SpanWriter

pytestmark = costly  # every test here: see tests.support.tiers.costly


@pytest.fixture
def openinference() -> Iterator[None]:
    need("openinference.instrumentation.google_adk")
    from openinference.instrumentation.google_adk import GoogleADKInstrumentor

    instrumentor = GoogleADKInstrumentor()
    instrumentor.instrument(tracer_provider=trace.get_tracer_provider())
    try:
        yield
    finally:
        instrumentor.uninstrument()


@pytest.mark.parametrize("schema", ["2", "1"])
def test_counts_are_right_or_null(
    schema: str, openinference: None, writer: SpanWriter, captured: BlockingSpanProcessor
) -> None:
    with adk_settings(schema, content=True):
        events = run_scenario(SCENARIOS["multi_turn"])
    assert captured.force_flush()
    expected = oracle(events)
    ours = turns(writer.connection)

    assert len(ours) == len(expected) == 2
    for turn, adk in zip(ours, expected, strict=True):
        assert turn["convention"] == "openinference"
        assert [{"name": c["name"]} for c in turn["calls"]] == [
            {"name": c["name"]} for c in adk.calls
        ]
        assert turn["tool_calls"] == adk.tool_call_count
        assert turn["user_text"] == adk.user_text
        assert turn["final_text"] == adk.final_text
        if schema == "2":
            # The folded span held the last call's counts (a number, and a wrong one).
            [folded] = rows(
                writer.connection,
                f"SELECT * FROM llm_calls WHERE turn_id = '{turn['turn_id']}'",  # noqa: S608 (a turn id the view gave)
            )
            assert folded["calls_folded"] is True
            assert folded["input_tokens"] is None
            assert turn["llm_calls"] is None
            assert turn["input_tokens"] is None
            assert turn["output_tokens"] is None
            assert turn["total_tokens"] is None
        else:
            assert turn["llm_calls"] == adk.inference_call_count
            assert turn["total_tokens"] == adk.token_total
