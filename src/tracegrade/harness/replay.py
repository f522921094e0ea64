"""Replaying one case through the real agent: a fresh runner and session, turns in order.

Each turn runs inside a `tracegrade.eval_turn` span that starts a new trace and names
the run, case, repeat and turn; ADK's own spans nest under it. An exception from the
agent, a model or a tool ends the case: that turn is recorded as an error and the turns
after it as skipped, so a crash is never mistaken for a wrong answer. A run stopped by
Ctrl-C records the turn it stopped in as interrupted (an error), and the case's later
turns as skipped.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field

from google.adk.agents.base_agent import BaseAgent
from google.adk.agents.run_config import RunConfig
from google.adk.events.event import Event
from google.adk.runners import InMemoryRunner
from google.adk.telemetry import ContentCapturingMode, TelemetryConfig
from google.genai import types
from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.trace import Span, Status, StatusCode

from tracegrade.evalset import Case, ExpectedTurn
from tracegrade.harness import record

DEFAULT_USER = "test_user_id"  # ADK eval's default user id

# Eval runs record tool arguments and messages: ADK records none by default.
RUN_CONFIG = RunConfig(
    telemetry=TelemetryConfig(capture_message_content=ContentCapturingMode.SPAN_ONLY)
)


@dataclass
class TurnOutcome:
    turn_index: int
    final_text: str | None = None
    error: str | None = None
    skipped: bool = False


@dataclass
class CaseOutcome:
    eval_set_id: str
    case_id: str
    repeat: int
    turns: list[TurnOutcome] = field(default_factory=list)
    ending: str | None = None
    """Scenario cases: how the conversation ended (stop_signal, turn_limit, error,
    agent_error)."""

    @property
    def error(self) -> str | None:
        return next((t.error for t in self.turns if t.error and not t.skipped), None)


async def replay_case(
    agent: BaseAgent, case: Case, run_id: str, repeat: int, turn_timeout_s: float | None
) -> CaseOutcome:
    conversation = await open_conversation(agent, case, run_id, repeat)
    outcome = CaseOutcome(case.eval_set_id, case.case_id, repeat)
    failed: str | None = None
    stopped: asyncio.CancelledError | None = None
    for turn in case.turns:
        span = conversation.start_turn(turn.turn_index, turn.user_text)
        try:
            if failed:
                outcome.turns.append(_skip(span, turn, failed))
                continue
            result = await conversation.run_turn(
                span, turn.turn_index, turn.user_text, turn_timeout_s
            )
            outcome.turns.append(result)
            if result.error:
                failed = f"turn {turn.turn_index} failed"
        except asyncio.CancelledError as cancelled:
            # The run is being stopped (Ctrl-C): this turn is recorded as interrupted, the
            # rest of the case as skipped, without waiting on anything; then it stops.
            stopped = cancelled
            outcome.turns.append(_interrupted(span, turn))
            failed = "the run was stopped"
        finally:
            span.end()
    if stopped is not None:
        raise stopped
    await conversation.runner.close()
    return outcome


@dataclass
class Conversation:
    """One case repeat's runner and session, and every event of it so far (what ADK's
    user simulator reads)."""

    runner: InMemoryRunner
    session_id: str
    user_id: str
    app_name: str
    run_id: str
    case: Case
    repeat: int
    events: list[Event] = field(default_factory=list)

    def start_turn(self, turn_index: int, user_text: str | None) -> Span:
        """The turn's `tracegrade.eval_turn` span, the root of a new trace."""
        return record.tracer().start_span(
            record.TURN_SPAN,
            context=Context(),
            attributes=turn_attributes(self, turn_index, user_text),
        )

    async def run_turn(
        self, span: Span, turn_index: int, user_text: str, timeout_s: float | None
    ) -> TurnOutcome:
        """Send `user_text` inside `span`; a crash is recorded on the span as an error."""
        return await _run_turn(self, span, turn_index, user_text, timeout_s)


async def open_conversation(agent: BaseAgent, case: Case, run_id: str, repeat: int) -> Conversation:
    """A fresh runner and session for one case repeat, as `adk eval` makes them."""
    # An empty app name or user id counts as not given (real eval files hold ""; ADK's own
    # runner refuses an empty app name).
    app_name = (case.session.app_name if case.session else None) or agent.name
    user_id = (case.session.user_id if case.session else None) or DEFAULT_USER
    runner = InMemoryRunner(agent=agent, app_name=app_name)
    session = await runner.session_service.create_session(
        app_name=app_name,
        user_id=user_id,
        session_id=(case.session.session_id if case.session else None) or uuid.uuid4().hex,
        state=dict(case.session.state) if case.session else None,
    )
    return Conversation(runner, session.id, user_id, app_name, run_id, case, repeat)


async def _run_turn(
    conversation: Conversation,
    span: Span,
    turn_index: int,
    user_text: str,
    timeout_s: float | None,
) -> TurnOutcome:
    message = types.Content(role="user", parts=[types.Part(text=user_text)])
    conversation.events.append(Event(author="user", content=message))
    final: list[str | None] = [None]

    async def consume() -> None:
        async for event in conversation.runner.run_async(
            user_id=conversation.user_id,
            session_id=conversation.session_id,
            new_message=message,
            run_config=RUN_CONFIG,
        ):
            conversation.events.append(event)
            if event.is_final_response():
                final[0] = _text(event)

    try:
        with trace.use_span(
            span, end_on_exit=False, record_exception=False, set_status_on_exception=False
        ):
            await asyncio.wait_for(consume(), timeout_s)
    except Exception as exc:  # the agent, a model or a tool crashed: an error, not a failure
        return fail_turn(span, turn_index, exc, timeout_s)
    if final[0] is not None:
        span.set_attribute(record.FINAL_TEXT, final[0])
    return TurnOutcome(turn_index, final_text=final[0])


def fail_turn(
    span: Span, turn_index: int, exc: Exception, timeout_s: float | None, prefix: str = ""
) -> TurnOutcome:
    """Record `exc` on the turn's span: the turn is an error, not a wrong answer."""
    if isinstance(exc, TimeoutError):
        message = f"TimeoutError: the turn took longer than {timeout_s}s"
        error_type = "TimeoutError"
    else:
        message = f"{prefix}{type(exc).__name__}: {exc}"
        error_type = str(getattr(exc, "code", None) or type(exc).__name__)
    span.record_exception(exc)
    span.set_attribute("error.type", error_type)
    span.set_status(Status(StatusCode.ERROR, message))
    return TurnOutcome(turn_index, error=message)


INTERRUPTED = "interrupted"
"""The `error.type` of a turn the run was stopped in."""


def _interrupted(span: Span, turn: ExpectedTurn) -> TurnOutcome:
    message = "interrupted: the run was stopped during this turn"
    span.set_attribute("error.type", INTERRUPTED)
    span.set_status(Status(StatusCode.ERROR, message))
    return TurnOutcome(turn.turn_index, error=message)


def _skip(span: Span, turn: ExpectedTurn, reason: str) -> TurnOutcome:
    message = f"skipped: {reason}"
    span.set_attribute(record.SKIPPED, True)
    span.set_attribute("error.type", "skipped")
    span.set_status(Status(StatusCode.ERROR, message))
    return TurnOutcome(turn.turn_index, error=message, skipped=True)


def turn_attributes(
    conversation: Conversation, turn_index: int, user_text: str | None
) -> dict[str, str | int]:
    """The eval turn's identity (run, case, repeat, turn) and the user's message."""
    case = conversation.case
    attributes: dict[str, str | int] = {
        record.RUN_ID: conversation.run_id,
        record.EVAL_SET_ID: case.eval_set_id,
        record.CASE_ID: case.case_id,
        record.REPEAT: conversation.repeat,
        record.TURN_INDEX: turn_index,
        record.USER_ID: conversation.user_id,
        record.APP_NAME: conversation.app_name,
    }
    if user_text is not None:
        attributes[record.USER_TEXT] = user_text
    return attributes


def _text(event: Event) -> str | None:
    if event.content is None or not event.content.parts:
        return None
    # ADK eval's final response text: every non-empty text part, thoughts included.
    texts = [part.text for part in event.content.parts if part.text]
    return "\n".join(texts) if texts else None
