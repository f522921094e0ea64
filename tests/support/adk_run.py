"""Running scenarios under real OTel capture, and ADK eval's own view of the same runs.

The oracle is what google-adk's eval code derives from the session's events: per turn,
the tool trajectory, texts, and its efficiency numbers. Views must agree with it.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from google.adk.evaluation._efficiency_evaluators import (
    _InferenceCallCountV1Evaluator,
    _TokenUsageV1Evaluator,
    _ToolCallCountV1Evaluator,
)
from google.adk.evaluation.eval_case import Invocation, get_all_tool_calls
from google.adk.evaluation.evaluation_generator import EvaluationGenerator
from google.adk.events.event import Event
from google.adk.runners import InMemoryRunner
from google.genai import types
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor

from tests.support.scenarios import Scenario

SCHEMA_ENV = "ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN"
CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
V1_CONTENT_ENV = "ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS"


class RoutingProcessor(SpanProcessor):
    """The one processor on the test process's global provider; tests plug theirs in."""

    def __init__(self) -> None:
        self.target: SpanProcessor | None = None

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        if self.target:
            self.target.on_start(span, parent_context)

    def on_end(self, span: ReadableSpan) -> None:
        if self.target:
            self.target.on_end(span)

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return self.target.force_flush(timeout_millis) if self.target else True


ROUTER = RoutingProcessor()
"""The test process's one router (installed by conftest.py); `captured` plugs into it."""


@dataclass(frozen=True)
class OracleTurn:
    user_text: str | None
    final_text: str | None
    calls: list[dict[str, Any]]
    tool_call_count: float | None
    inference_call_count: float | None
    token_total: float | None


@contextmanager
def adk_settings(schema: str, content: bool) -> Iterator[None]:
    saved = {key: os.environ.get(key) for key in (SCHEMA_ENV, CONTENT_ENV, V1_CONTENT_ENV)}
    os.environ[SCHEMA_ENV] = schema
    os.environ[V1_CONTENT_ENV] = "true" if content else "false"
    if content:
        os.environ[CONTENT_ENV] = "SPAN_ONLY"
    else:
        os.environ.pop(CONTENT_ENV, None)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def run_scenario(scenario: Scenario, session_id: str = "session-1") -> list[Event]:
    """Run every turn of the scenario in one session; return the session's events."""
    return asyncio.run(_run(scenario, session_id))


async def _run(scenario: Scenario, session_id: str) -> list[Event]:
    runner = InMemoryRunner(agent=scenario.build(), app_name="probe")
    await runner.session_service.create_session(
        app_name="probe", user_id="u", session_id=session_id
    )
    for text in scenario.turns:
        message = types.Content(role="user", parts=[types.Part(text=text)])
        try:
            async for _ in runner.run_async(
                user_id="u", session_id=session_id, new_message=message
            ):
                pass
        except Exception:
            if not scenario.raises:
                raise
    session = await runner.session_service.get_session(
        app_name="probe", user_id="u", session_id=session_id
    )
    assert session is not None
    return list(session.events)


def oracle(events: list[Event]) -> list[OracleTurn]:
    invocations = EvaluationGenerator.convert_events_to_eval_invocations(events)
    counts = _per_turn(_ToolCallCountV1Evaluator(), invocations)
    inferences = _per_turn(_InferenceCallCountV1Evaluator(), invocations)
    tokens = _per_turn(_TokenUsageV1Evaluator(), invocations)
    return [
        OracleTurn(
            user_text=_text(inv.user_content),
            final_text=_text(inv.final_response),
            calls=[
                {"name": c.name, "args": c.args} for c in get_all_tool_calls(inv.intermediate_data)
            ],
            tool_call_count=counts[i],
            inference_call_count=inferences[i],
            token_total=tokens[i],
        )
        for i, inv in enumerate(invocations)
    ]


def _per_turn(evaluator: Any, invocations: list[Invocation]) -> list[float | None]:
    result = evaluator.evaluate_invocations(invocations, None)
    return [r.score for r in result.per_invocation_results]


def _text(content: types.Content | None) -> str | None:
    if content is None or not content.parts:
        return None
    return "\n".join(part.text for part in content.parts if part.text is not None)
