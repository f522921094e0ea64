"""The peer material (tests/data/peer): real eval files, ADK's own unit cases and generated
cases, read into what the tests need, and an agent that replays recorded behaviour."""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncGenerator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.tool_context import ToolContext
from google.genai import types

from tests.support.paths import DATA
from tracegrade.testing.script import ScriptedResponse
from tracegrade.testing.scripted_llm import to_llm_response

PEER = DATA / "peer"
EVALFILES = PEER / "evalfiles"

Call = dict[str, Any]
"""{"name": ..., "args": ...}; args None (or absent) means the call had none."""


@dataclass(frozen=True)
class Side:
    calls: list[Call]
    final: str | None


@dataclass(frozen=True)
class Turn:
    actual: Side
    expected: Side


@dataclass(frozen=True)
class PeerCase:
    case_id: str
    turns: list[Turn]
    metric: str | None = None
    criterion: dict[str, Any] | None = None


def _side(data: Mapping[str, Any]) -> Side:
    return Side(list(data["tool_calls"]), data["final_response"])


def _cases(name: str) -> list[PeerCase]:
    document = json.loads((PEER / name).read_text())
    return [
        PeerCase(
            case["id"],
            [Turn(_side(t["actual"]), _side(t["expected"])) for t in case["turns"]],
            case.get("metric"),
            case.get("criterion"),
        )
        for case in document["cases"]
    ]


@cache
def unit_cases() -> list[PeerCase]:
    """google-adk's own evaluator unit tests, each with its metric and criterion."""
    return _cases("adk_unit_cases.json")


@cache
def random_cases() -> list[PeerCase]:
    """400 generated cases (no criterion: every match type applies)."""
    return _cases("random_cases.json")


@cache
def manifest() -> list[dict[str, Any]]:
    files: list[dict[str, Any]] = json.loads((EVALFILES / "manifest.json").read_text())["files"]
    return files


def real_files() -> list[Path]:
    return [EVALFILES / entry["local"] for entry in manifest()]


def file_id(path: Path) -> str:
    """`owner/repo@commit7/path`: short, unique, readable in a test id."""
    entry = next(e for e in manifest() if EVALFILES / e["local"] == path)
    return f"{entry['repo']}@{entry['commit'][:7]}/{entry['path']}"


# The agent: a model that replays a conversation's scripted answers, and echo tools.


Key = tuple[str, ...]
"""The user messages of a conversation so far: which turn of which case is being asked."""


class ConversationLlm(BaseLlm):
    """Answers from the whole conversation so far (every user message in the request), not
    just the latest one, so cases whose turns share a text get their own answers."""

    model: str = "peer-replay"
    answers: dict[Key, list[ScriptedResponse]]

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        users, model_turns = _conversation(llm_request.contents)
        yield to_llm_response(self.answers[users][model_turns], self.model)


def _conversation(contents: Sequence[types.Content]) -> tuple[Key, int]:
    users: list[str] = []
    model_turns = 0
    for content in contents:
        texts = [p.text for p in content.parts or [] if p.text is not None]
        if content.role == "user" and texts:
            users.append("".join(texts))
            model_turns = 0
        elif content.role == "model":
            model_turns += 1
    return tuple(users), model_turns


def answers(calls: Sequence[Call], final: str | None) -> list[ScriptedResponse]:
    """One call a response (so the order is the order made), then the final text."""
    made = [ScriptedResponse.model_validate({"tool_calls": [dict(call)]}) for call in calls]
    return [*made, ScriptedResponse(text=final or "")]


class EchoTool(BaseTool):
    """A tool of any name that answers every call with {"ok": true}."""

    def __init__(self, name: str) -> None:
        super().__init__(name=name, description=f"Echoes {name}.")

    def _get_declaration(self) -> types.FunctionDeclaration:
        return types.FunctionDeclaration(name=self.name, description=self.description)

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        return {"ok": True}


def replaying_agent(script: Mapping[Key, list[ScriptedResponse]]) -> LlmAgent:
    names = sorted(
        {c.name for responses in script.values() for r in responses for c in r.tool_calls}
    )
    return LlmAgent(
        name="peer_replay",
        model=ConversationLlm(answers=dict(script)),
        tools=[EchoTool(name) for name in names],
    )


def digest(*parts: object) -> int:
    """A stable number from values (Python's hash() changes per process)."""
    return int(hashlib.sha256(repr(parts).encode()).hexdigest()[:12], 16)
