"""Pydantic models of ADK's `*.evalset.json` format (google-adk 2.13 `EvalSet`).

They mirror `google.adk.evaluation.eval_set` / `eval_case` field for field, except that
fields no grader reads (`app_details`, durations) are left out. Where ADK refuses
unknown keys (`Invocation`, `IntermediateData`, `InvocationEvents`,
`ConversationScenario`, `Rubric`, and google-genai's `Content`, `Part`, `FunctionCall`,
`FunctionResponse`) the models keep them aside (`ClosedModel`) and the loader refuses the
file as ADK does, naming them, unless asked to ignore them.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, model_validator

from tracegrade.evalset.content import (
    ClosedModel,
    Content,
    FileModel,
    FunctionCall,
    FunctionResponse,
    Part,
)


class IntermediateData(ClosedModel):
    """The hand-written shape of a turn's intermediate steps."""

    tool_uses: list[FunctionCall] = Field(
        default_factory=list, description="Expected tool calls in chronological order."
    )
    tool_responses: list[FunctionResponse] = Field(
        default_factory=list, description="Tool results in chronological order."
    )
    intermediate_responses: list[tuple[str, list[Part]]] = Field(
        default_factory=list,
        description="`[author, [Part, ...]]` pairs: sub-agent text that is not the final answer.",
    )


class InvocationEvent(FileModel):
    """One agent event of a turn, as ADK records it when it runs the agent."""

    author: str = Field(description="Name of the agent that produced the event.")
    content: Content | None = Field(default=None, description="Text, function calls, results.")


class InvocationEvents(ClosedModel):
    """The shape ADK writes for a turn it ran: every agent event in order."""

    invocation_events: list[InvocationEvent] = Field(
        default_factory=list, description="Events in order; tool calls are their function calls."
    )


def _intermediate_shape(value: Any) -> str:
    # ADK lets pydantic try both shapes and relies on `extra="forbid"` to reject the wrong
    # one; with unknown keys ignored that would be ambiguous, so pick by the telling key.
    if isinstance(value, InvocationEvents) or (
        isinstance(value, dict) and ("invocation_events" in value or "invocationEvents" in value)
    ):
        return "InvocationEvents"
    return "IntermediateData"


UNION_TAGS = frozenset({"IntermediateData", "InvocationEvents"})
"""Tags pydantic puts into error locations for `intermediate_data`; messages drop them."""

IntermediateDataType = Annotated[
    Annotated[IntermediateData, Tag("IntermediateData")]
    | Annotated[InvocationEvents, Tag("InvocationEvents")],
    Discriminator(_intermediate_shape),
]


class RubricContent(ClosedModel):
    """What a rubric asks of the agent."""

    text_property: str | None = Field(default=None, description="The property, in words.")


class Rubric(ClosedModel):
    """One rubric an LLM judge rates (ADK's `Rubric`)."""

    rubric_id: str = Field(description="Unique id of the rubric.")
    rubric_content: RubricContent = Field(description="The property the judge checks.")
    description: str | None = Field(default=None, description="How to read its result.")
    type: str | None = Field(
        default=None,
        description="Which metric it is for: ADK's rubric metrics take only their own type "
        "(FINAL_RESPONSE_QUALITY, TOOL_USE_QUALITY, TRAJECTORY_QUALITY); `TASK` rubrics "
        "are the tasks of tracegrade's `task_completion`.",
    )


class Invocation(ClosedModel):
    """One user turn: the user's message and the expected (or recorded) agent behaviour."""

    invocation_id: str = Field(default="", description="Id of the turn; not used for matching.")
    user_content: Content = Field(description="The user's message. Required.")
    final_response: Content | None = Field(
        default=None, description="The reference final answer; null when none is expected."
    )
    intermediate_data: IntermediateDataType | None = Field(
        default=None, description="`IntermediateData` or `InvocationEvents`, chosen by its keys."
    )
    creation_timestamp: float = Field(default=0.0, description="Seconds since the epoch.")
    rubrics: list[Rubric] | None = Field(
        default=None, description="Rubrics for this turn only, added to the case's."
    )

    ADK_ALSO_KNOWS = frozenset(
        {"app_details", "duration", "model_duration", "rubrics", "tool_duration"}
    )


class SessionInput(FileModel):
    """The session an eval case starts in."""

    app_name: str = Field(description="App name the session is created under.")
    user_id: str = Field(description="User id the session is created under.")
    session_id: str | None = Field(
        default=None, description="Fixed session id; an existing session is reused as-is."
    )
    state: dict[str, Any] = Field(default_factory=dict, description="Initial session state.")


class ConversationScenario(ClosedModel):
    """A goal for ADK's LLM user simulator instead of a fixed conversation."""

    starting_prompt: str = Field(description="The first user message, fixed.")
    conversation_plan: str = Field(description="What the simulated user tries to achieve.")
    user_persona: str | dict[str, Any] | None = Field(
        default=None, description="A persona object or the id of a prebuilt one (e.g. NOVICE)."
    )


class EvalCase(FileModel):
    """One eval case: a static conversation or a scenario, and its starting session."""

    eval_id: str = Field(description="Case id, unique within the eval set.")
    conversation: list[Invocation] | None = Field(
        default=None, description="The turns, replayed in order. Exclusive with the scenario."
    )
    conversation_scenario: ConversationScenario | None = Field(
        default=None, description="A simulated-user scenario. Exclusive with `conversation`."
    )
    session_input: SessionInput | None = Field(default=None, description="Initial session.")
    final_session_state: dict[str, Any] | None = Field(
        default_factory=dict, description="Expected state at the end; no built-in metric reads it."
    )
    creation_timestamp: float = Field(default=0.0, description="Seconds since the epoch.")
    rubrics: list[Rubric] | None = Field(
        default=None, description="Rubrics for every turn of the conversation."
    )

    @model_validator(mode="after")
    def _conversation_xor_scenario(self) -> EvalCase:
        if (self.conversation is None) == (self.conversation_scenario is None):
            raise ValueError("exactly one of conversation and conversation_scenario must be given")
        return self


class EvalSet(BaseModel):
    """A `*.evalset.json` file. ADK reads its top level in snake_case only."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    eval_set_id: str = Field(description="Eval set id.")
    name: str | None = Field(default=None, description="Display name.")
    description: str | None = Field(default=None, description="What the set covers.")
    eval_cases: list[EvalCase] = Field(description="The cases.")
    creation_timestamp: float = Field(default=0.0, description="Seconds since the epoch.")
