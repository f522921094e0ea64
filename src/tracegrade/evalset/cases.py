"""The normalised expectations the harness replays and the scorers compare against.

Every file format loads into these, so nothing downstream knows about camelCase, old
formats or the two intermediate-data shapes. They are frozen; treat the dicts inside
(args, state) as read-only too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

EvalSetFormat = Literal["evalset", "legacy_list", "test_rows"]
"""`evalset`: ADK `EvalSet` JSON; `legacy_list`: the old `[{name, data}]` list;
`test_rows`: a `*.test.json` list of query rows (one case per file)."""


@dataclass(frozen=True)
class ExpectedCall:
    """One expected tool call."""

    name: str
    args: dict[str, Any] | None
    """Decoded JSON arguments. None (absent) is not `{}`: ADK's matching tells them apart."""


@dataclass(frozen=True)
class IntermediateResponse:
    """Text an agent says on the way to the final answer."""

    author: str
    text: str


@dataclass(frozen=True)
class ExpectedTurn:
    """One user turn of a case and what should happen in it."""

    turn_index: int
    """0-based position in the conversation; actual and expected turns pair by position."""
    user_text: str
    """The user's message: its text parts joined with "\\n"."""
    final_text: str | None
    """The reference answer (text parts joined with "\\n"), or None when none is given."""
    tool_calls: tuple[ExpectedCall, ...] = ()
    """Expected tool calls in order (from `tool_uses` or the events' function calls)."""
    intermediate_responses: tuple[IntermediateResponse, ...] = ()
    invocation_id: str = ""
    """The id the file gave the turn; informational only."""
    rubrics: tuple[dict[str, Any], ...] = ()
    """This turn's rubrics for LLM judges, as ADK's `Rubric` JSON (snake_case)."""


@dataclass(frozen=True)
class SessionSpec:
    """The session a case starts in (ADK's `session_input`)."""

    app_name: str
    user_id: str
    session_id: str | None = None
    """A fixed session id; None lets the harness create one."""
    state: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Scenario:
    """A simulated-user goal (ADK's `conversation_scenario`)."""

    starting_prompt: str
    conversation_plan: str
    user_persona: str | dict[str, Any] | None = None


@dataclass(frozen=True)
class Case:
    """One eval case, normalised."""

    eval_set_id: str
    case_id: str
    session: SessionSpec | None
    """None when the file gives no session; the harness then picks app and user."""
    turns: tuple[ExpectedTurn, ...]
    final_session_state: dict[str, Any] = field(default_factory=dict)
    scenario: Scenario | None = None
    reason_not_replayable: str | None = None
    """Why the harness cannot run this case (e.g. media in a user message)."""
    rubrics: tuple[dict[str, Any], ...] = ()
    """Rubrics for every turn, as ADK's `Rubric` JSON (snake_case)."""

    @property
    def replayable(self) -> bool:
        """Whether the harness can replay the turns as written."""
        return self.reason_not_replayable is None


@dataclass(frozen=True)
class LoadedEvalSet:
    """One eval-set file as loaded, with the cases it contributes."""

    path: Path
    eval_set_id: str
    content_sha256: str
    """sha256 of the file's bytes, hex."""
    format: EvalSetFormat
    cases: tuple[Case, ...]
    name: str | None = None
    description: str | None = None
    session_file: Path | None = None
    """The `initial.session.json` a `*.test.json` file took its session from, if any."""
    warnings: tuple[str, ...] = ()
    """What loading left out, to show once (keys ADK refuses, when told to ignore them)."""
