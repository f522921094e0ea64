"""Pydantic models of ADK's older eval formats, and their conversion to `EvalCase`.

* `*.test.json` (AgentEvaluator / `adk test`): a list of query rows; one file is one case,
  rows are its turns. Its initial session comes from a separate file.
* The old eval-set list (`adk eval`'s fallback when a file is not an `EvalSet`):
  `[{name, data: [rows], initial_session}]`, one case per element.

ADK reads these with plain dict lookups, so keys are snake_case only. The conversion
follows `local_eval_sets_manager.convert_eval_set_to_pydantic_schema`, except that
invocation ids are "" rather than random UUIDs, so loading the same file twice gives
the same cases.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from tracegrade.evalset.content import Content, FunctionCall, Part
from tracegrade.evalset.schema import EvalCase, IntermediateData, Invocation, SessionInput

INITIAL_SESSION_FILE = "initial.session.json"
"""The initial-session file ADK's own test suites keep beside their `*.test.json` files."""


class _LegacyModel(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class ExpectedToolUse(_LegacyModel):
    """An expected tool call in the old format."""

    tool_name: str = Field(description="Tool name; becomes `FunctionCall.name`.")
    tool_input: dict[str, Any] | None = Field(
        description="Arguments; becomes `FunctionCall.args`. The key is required, as in ADK."
    )


class ExpectedAgentResponse(_LegacyModel):
    """Expected text from a sub-agent on the way to the final answer."""

    author: str = Field(description="The agent that says it.")
    text: str = Field(description="What it says.")


class QueryRow(_LegacyModel):
    """One turn of a `*.test.json` file."""

    query: str = Field(description="The user message.")
    expected_tool_use: list[ExpectedToolUse] = Field(
        default_factory=list, description="Expected tool calls, in order."
    )
    expected_intermediate_agent_responses: list[ExpectedAgentResponse] = Field(
        default_factory=list, description="Expected sub-agent text."
    )
    reference: str | None = Field(
        default="", description='Expected final answer. ADK reads a missing one as "".'
    )

    def to_invocation(self) -> Invocation:
        """The turn in `EvalSet` form, as ADK converts it."""
        calls = [FunctionCall(name=u.tool_name, args=u.tool_input) for u in self.expected_tool_use]
        responses = [
            (r.author, [Part(text=r.text)]) for r in self.expected_intermediate_agent_responses
        ]
        return Invocation(
            user_content=Content(role="user", parts=[Part(text=self.query)]),
            final_response=Content(role="model", parts=[Part(text=self.reference or "")]),
            intermediate_data=IntermediateData(tool_uses=calls, intermediate_responses=responses),
        )


class InitialSession(_LegacyModel):
    """The starting session of an old-format case (also the initial-session file)."""

    app_name: str = Field(default="", description="App name.")
    user_id: str = Field(default="", description="User id.")
    state: dict[str, Any] = Field(default_factory=dict, description="Initial state.")

    def to_session_input(self) -> SessionInput:
        return SessionInput(app_name=self.app_name, user_id=self.user_id, state=self.state)


def _none_if_empty(value: Any) -> Any:
    # ADK builds a session only from a non-empty `initial_session` dict.
    return None if value == {} else value


class LegacyEvalCase(_LegacyModel):
    """One element of the old eval-set list."""

    name: str = Field(description="Case id.")
    data: list[QueryRow] = Field(description="The turns.")
    initial_session: InitialSession | None = Field(default=None, description="Initial session.")

    _empty_session_is_none = field_validator("initial_session", mode="before")(_none_if_empty)

    def to_eval_case(self) -> EvalCase:
        session = None if self.initial_session is None else self.initial_session.to_session_input()
        turns = [row.to_invocation() for row in self.data]
        return EvalCase(eval_id=self.name, conversation=turns, session_input=session)


def rows_to_eval_case(
    case_id: str, rows: list[QueryRow], session: InitialSession | None
) -> EvalCase:
    """A `*.test.json` file as one case, as AgentEvaluator converts it."""
    legacy = LegacyEvalCase(name=case_id, data=rows, initial_session=session)
    return legacy.to_eval_case()


def initial_session_from(value: Any) -> InitialSession | None:
    """Validate an initial-session file's JSON (a dict; `{}` means no session)."""
    value = _none_if_empty(value)
    return None if value is None else InitialSession.model_validate(value)
