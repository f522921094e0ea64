"""Playing one `conversation_scenario` case: ADK's user simulator writes each user message,
the real agent answers, until the simulator stops.

The loop is ADK's (`EvaluationGenerator._generate_inferences_from_root_agent`): ask the
simulator for the next message with a copy of every event so far, run the turn, and stop
on any status but SUCCESS. Each turn is an eval turn like a replayed one (its
`tracegrade.eval_turn` span names run, case, repeat and turn, and holds the simulated
user's text), so views, scorers and reports need nothing new. Each ask of the simulator
is a `tracegrade.user_simulator` span of its own trace, outside the turn: its model's
time and tokens never count as the agent's. How the conversation ended is on the last
of those spans: `stop_signal` (the simulator saw the goal reached), `turn_limit`
(`max_allowed_invocations`) or `error` — a simulator that failed makes the case repeat
an error (an errored eval turn), never a failure.
"""

from __future__ import annotations

import asyncio
import copy
from dataclasses import dataclass

from google.adk.agents.base_agent import BaseAgent
from google.adk.evaluation.simulation.llm_backed_user_simulator import (
    LlmBackedUserSimulatorConfig,
)
from google.adk.evaluation.simulation.user_simulator import Status, UserSimulator
from opentelemetry.context import Context
from opentelemetry.trace import Span, StatusCode
from opentelemetry.trace import Status as SpanStatus

from tracegrade.evalset import Case
from tracegrade.harness import record
from tracegrade.harness.replay import (
    CaseOutcome,
    Conversation,
    TurnOutcome,
    fail_turn,
    open_conversation,
)
from tracegrade.harness.simulator import CountingLlm, build_simulator

ENDINGS = {
    Status.STOP_SIGNAL_DETECTED: "stop_signal",
    Status.TURN_LIMIT_REACHED: "turn_limit",
    Status.NO_MESSAGE_GENERATED: "no_message",
}
SIMULATOR_FAILED = "user simulator failed: "


@dataclass
class Ask:
    """One answer of the simulator: the next message, or how the conversation ended."""

    text: str | None = None
    ending: str | None = None
    error: TurnOutcome | None = None


async def simulate_case(
    agent: BaseAgent,
    case: Case,
    run_id: str,
    repeat: int,
    turn_timeout_s: float | None,
    config: LlmBackedUserSimulatorConfig,
) -> CaseOutcome:
    simulator, model = build_simulator(config, case, repeat)
    conversation = await open_conversation(agent, case, run_id, repeat)
    outcome = CaseOutcome(case.eval_set_id, case.case_id, repeat)
    try:
        await _play(conversation, simulator, model, turn_timeout_s, outcome)
    finally:
        await conversation.runner.close()
    return outcome


async def _play(
    conversation: Conversation,
    simulator: UserSimulator,
    model: CountingLlm,
    timeout_s: float | None,
    outcome: CaseOutcome,
) -> None:
    turn_index = 0
    while True:
        ask = await _ask(conversation, simulator, model, turn_index, timeout_s)
        if ask.error is not None:
            outcome.turns.append(ask.error)
        if ask.text is None:
            outcome.ending = ask.ending
            return
        span = conversation.start_turn(turn_index, ask.text)
        try:
            result = await conversation.run_turn(span, turn_index, ask.text, timeout_s)
        finally:
            span.end()
        outcome.turns.append(result)
        if result.error:
            outcome.ending = "agent_error"
            return
        turn_index += 1


async def _ask(
    conversation: Conversation,
    simulator: UserSimulator,
    model: CountingLlm,
    turn_index: int,
    timeout_s: float | None,
) -> Ask:
    """The simulator's next message for `turn_index`, recorded on its own span."""
    attributes = {**_identity(conversation, turn_index), record.SIMULATOR_MODEL: model.inner.model}
    span = record.tracer().start_span(
        record.SIMULATOR_SPAN, context=Context(), attributes=attributes
    )
    try:
        ask = await _reply(conversation, simulator, turn_index, timeout_s, span)
        _record(span, model, ask)
        return ask
    finally:
        span.end()


async def _reply(
    conversation: Conversation,
    simulator: UserSimulator,
    turn_index: int,
    timeout_s: float | None,
    span: Span,
) -> Ask:
    events = copy.deepcopy(conversation.events)
    try:
        reply = await asyncio.wait_for(simulator.get_next_user_message(events), timeout_s)
    except Exception as exc:  # the simulator's model failed or said nothing: an error
        span.record_exception(exc)
        span.set_status(SpanStatus(StatusCode.ERROR, f"{type(exc).__name__}: {exc}"))
        return Ask(ending="error", error=_errored_turn(conversation, turn_index, exc, timeout_s))
    if reply.status != Status.SUCCESS or reply.user_message is None:
        return Ask(ending=ENDINGS.get(reply.status, str(reply.status)))
    text = "\n".join(p.text for p in reply.user_message.parts or [] if p.text)
    return Ask(text=text)


def _record(span: Span, model: CountingLlm, ask: Ask) -> None:
    usage = model.take()
    span.set_attribute(record.SIMULATOR_STATUS, ask.ending or "message")
    span.set_attribute(record.SIMULATOR_CALLS, usage.calls)
    if usage.model:
        span.set_attribute(record.SIMULATOR_MODEL, usage.model)
    if usage.input_tokens is not None:
        span.set_attribute(record.SIMULATOR_INPUT_TOKENS, usage.input_tokens)
    if usage.output_tokens is not None:
        span.set_attribute(record.SIMULATOR_OUTPUT_TOKENS, usage.output_tokens)
    if ask.text is not None:
        span.set_attribute(record.USER_TEXT, ask.text)


def _errored_turn(
    conversation: Conversation, turn_index: int, exc: Exception, timeout_s: float | None
) -> TurnOutcome:
    """The turn the simulator could not start, as an eval turn that errored."""
    span = conversation.start_turn(turn_index, None)
    try:
        return fail_turn(span, turn_index, exc, timeout_s, prefix=SIMULATOR_FAILED)
    finally:
        span.end()


def _identity(conversation: Conversation, turn_index: int) -> dict[str, str | int]:
    case = conversation.case
    return {
        record.RUN_ID: conversation.run_id,
        record.EVAL_SET_ID: case.eval_set_id,
        record.CASE_ID: case.case_id,
        record.REPEAT: conversation.repeat,
        record.TURN_INDEX: turn_index,
    }
