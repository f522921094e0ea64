"""`ScriptedLlm`: a google-adk model that replays a script, for tests without an API key."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncGenerator, Mapping, Sequence
from pathlib import Path
from typing import Any

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from pydantic import PrivateAttr

from tracegrade.errors import ScriptError
from tracegrade.testing.script import Script, ScriptedResponse, load_script, parse_script

# ADK re-labels other agents' output as user messages starting with this text.
_CONTEXT_PREFIX = "For context:"


class ScriptedLlm(BaseLlm):
    """Answers each model call from a `Script` instead of a real model.

    With `responses`, calls are answered in order (shared by every session using this
    model). With `by_user_text`, the answer depends only on the request: the latest user
    message picks the list, and the number of model turns since it picks the entry, so
    concurrent sessions and any case order give the same answers.
    """

    model: str = "scripted"
    script: Script
    _position: int = PrivateAttr(default=0)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @classmethod
    def from_file(cls, path: str | Path, model: str = "scripted") -> ScriptedLlm:
        return cls(model=model, script=load_script(path))

    @classmethod
    def from_responses(
        cls, responses: Sequence[Mapping[str, Any]], model: str = "scripted"
    ) -> ScriptedLlm:
        return cls(model=model, script=parse_script({"responses": [dict(r) for r in responses]}))

    @classmethod
    def by_user_text(
        cls, turns: Mapping[str, Sequence[Mapping[str, Any]]], model: str = "scripted"
    ) -> ScriptedLlm:
        script = parse_script({"by_user_text": {k: [dict(r) for r in v] for k, v in turns.items()}})
        return cls(model=model, script=script)

    def reset(self) -> None:
        """Start an in-order script from its first response again."""
        with self._lock:
            self._position = 0

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        scripted = self._next(llm_request)
        if scripted.delay_s:
            await asyncio.sleep(scripted.delay_s)
        if scripted.raise_:
            raise RuntimeError(scripted.raise_)
        yield to_llm_response(scripted, self.model)

    def _next(self, request: LlmRequest) -> ScriptedResponse:
        if self.script.responses is not None:
            return self._next_in_order(self.script.responses)
        assert self.script.by_user_text is not None
        user_text, model_turns = _position_in_turn(request.contents)
        answers = self.script.by_user_text.get(user_text)
        if answers is None:
            known = ", ".join(repr(k) for k in self.script.by_user_text)
            raise ScriptError(
                f"{self.model}: no script for user message {user_text!r} (scripted: {known})"
            )
        if model_turns >= len(answers):
            raise ScriptError(
                f"{self.model}: script for {user_text!r} has {len(answers)} responses, "
                f"call {model_turns + 1} was made"
            )
        return answers[model_turns]

    def _next_in_order(self, responses: list[ScriptedResponse]) -> ScriptedResponse:
        with self._lock:
            if self._position >= len(responses):
                raise ScriptError(
                    f"{self.model}: script exhausted after {len(responses)} responses, "
                    "another call was made"
                )
            self._position += 1
            return responses[self._position - 1]


def _position_in_turn(contents: list[types.Content]) -> tuple[str, int]:
    """The latest real user message, and how many model responses followed it."""
    model_turns = 0
    for content in reversed(contents):
        text = _user_text(content)
        if text is not None:
            return text, model_turns
        if content.role == "model":
            model_turns += 1
    raise ScriptError("scripted model: the request holds no user message")


def _user_text(content: types.Content) -> str | None:
    if content.role != "user" or not content.parts:
        return None
    texts = [part.text for part in content.parts if part.text is not None]
    if not texts or texts[0].startswith(_CONTEXT_PREFIX):
        return None
    return "".join(texts)


def to_llm_response(scripted: ScriptedResponse, model: str) -> LlmResponse:
    usage = _usage(scripted)
    if scripted.error_code:
        return LlmResponse(
            error_code=scripted.error_code,
            error_message=scripted.error_message,
            finish_reason=_finish_reason(scripted.error_code),
            usage_metadata=usage,
            model_version=model,
        )
    parts = [
        types.Part(function_call=types.FunctionCall(name=call.name, args=call.args, id=call.id))
        for call in scripted.tool_calls
    ]
    if scripted.text is not None:
        parts.insert(0, types.Part(text=scripted.text))
    return LlmResponse(
        content=types.Content(role="model", parts=parts),
        finish_reason=types.FinishReason.STOP,
        usage_metadata=usage,
        model_version=model,
    )


def _usage(scripted: ScriptedResponse) -> types.GenerateContentResponseUsageMetadata | None:
    if scripted.usage is None:
        return None
    u = scripted.usage
    return types.GenerateContentResponseUsageMetadata(
        prompt_token_count=u.input,
        candidates_token_count=u.output,
        thoughts_token_count=u.thoughts,
        cached_content_token_count=u.cached,
    )


def _finish_reason(error_code: str) -> types.FinishReason:
    try:
        return types.FinishReason(error_code)
    except ValueError:
        return types.FinishReason.OTHER
