"""`ScriptedUser`: the model of ADK's user simulator, scripted, so conversation scenarios
run offline and the same way every time.

ADK's `LlmBackedUserSimulator` asks its model for the next user message with one prompt:
its instructions, the conversation plan and the conversation so far ("author: text"
blocks under `# Conversation History`). `ScriptedUser` answers from the agent's last
message there:

    user = ScriptedUser.from_replies({
        "is now on": "How warm is the bedroom?",     # a substring of the agent's last message
        "°C": "</finished>",                         # ADK's stop signal: the goal is reached
    })

A list of replies is picked by the request's seed (tracegrade seeds each repeat:
configured seed + repeat), so repeats are different conversations and each plays the same
way again. ADK builds the simulator's model from a name, so give the user one:
`user.register("my-user")`, then `"user_simulator_config": {"model": "my-user"}`.
"""

from __future__ import annotations

import re
import threading
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.models.registry import LLMRegistry
from pydantic import PrivateAttr

from tracegrade.testing.scripted_judge import request_text, text_response

HISTORY_HEADING = "# Conversation History"
STOP = "</finished>"

UserAnswer = Callable[[str, "int | None"], "str | None"]
"""`(prompt, seed) -> message`; None answers with no text (ADK then raises)."""


@dataclass(frozen=True)
class UserCall:
    prompt: str
    seed: int | None
    answer: str | None
    error: str | None = None


class ScriptedUser(BaseLlm):
    """Answers `answer(prompt, seed)`; it may raise, to play a failing simulator."""

    model: str = "scripted-user"
    answer: Any
    usage: dict[str, int] | None = None
    """Tokens each answer reports: {"input": n, "output": m}."""
    _calls: list[UserCall] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @classmethod
    def from_replies(
        cls,
        replies: Mapping[str, str | Sequence[str]],
        otherwise: str | None = STOP,
        **fields: Any,
    ) -> ScriptedUser:
        """Replies keyed by a substring of the agent's last message (first match wins);
        `otherwise` when none matches. `fields`: `model`, `usage`."""
        return cls(answer=lambda prompt, seed: reply(replies, otherwise, prompt, seed), **fields)

    def register(self, name: str) -> str:
        """Make ADK's `LLMRegistry` resolve `name` to a model answering as this user."""
        user = self

        class Named(BaseLlm):
            @classmethod
            def supported_models(cls) -> list[str]:
                return [re.escape(name)]

            async def generate_content_async(
                self, llm_request: LlmRequest, stream: bool = False
            ) -> AsyncGenerator[LlmResponse, None]:
                async for response in user.generate_content_async(llm_request, stream):
                    yield response

        LLMRegistry.register(Named)
        return name

    @property
    def calls(self) -> list[UserCall]:
        """Every call made, in order."""
        return self._calls

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        prompt = request_text(llm_request)
        seed = llm_request.config.seed if llm_request.config is not None else None
        try:
            text = self.answer(prompt, seed)
        except Exception as exc:
            self._record(UserCall(prompt, seed, None, f"{type(exc).__name__}: {exc}"))
            raise
        self._record(UserCall(prompt, seed, text))
        yield text_response(text, self.usage, self.model)

    def _record(self, call: UserCall) -> None:
        with self._lock:
            self._calls.append(call)


def last_agent_message(prompt: str) -> str:
    """The last message of the conversation in a simulator prompt not written by the user."""
    history = prompt.rsplit(HISTORY_HEADING, 1)[-1].strip()
    blocks = [b for b in history.split("\n\n") if b.strip()]
    agent = [b.split(":", 1)[-1].strip() for b in blocks if not b.startswith("user:")]
    return agent[-1] if agent else ""


def reply(
    replies: Mapping[str, str | Sequence[str]], otherwise: str | None, prompt: str, seed: int | None
) -> str | None:
    """The reply `from_replies` gives to `prompt` under `seed`."""
    last = last_agent_message(prompt)
    for key, answer in replies.items():
        if key in last:
            if isinstance(answer, str):
                return answer
            return answer[(seed or 0) % len(answer)]
    return otherwise
