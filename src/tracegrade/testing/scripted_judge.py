"""`ScriptedJudge`: a judge model that answers from a Python function, for tests and
offline examples of judged metrics; and `judge_answers`, answers in the formats ADK's and
tracegrade's judges parse.

    judge = ScriptedJudge(answer=lambda prompt, sample: judge_answers.auto(prompt))

`sample` counts the earlier calls with the same prompt (0, 1, ...), so the samples of one
prompt can disagree. The function may raise, to play a failing judge. Every call is kept
in `calls`. Make a judge name resolve to it with `LLMRegistry.register` of a subclass, or
name it `package.module:attr` in `judge_model_options.judge_model`.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from typing import Any

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from pydantic import PrivateAttr

AnswerFunction = Callable[[str, int], "str | None"]


@dataclass(frozen=True)
class JudgeCall:
    prompt: str
    sample: int
    answer: str | None
    error: str | None = None


class ScriptedJudge(BaseLlm):
    """Answers `answer(prompt, sample)`; None is an answer without text."""

    model: str = "scripted-judge"
    answer: Any
    """`(prompt, sample) -> str | None`; may raise."""
    delay_s: float = 0.0
    """Seconds before each answer (a real judge's latency)."""
    usage: dict[str, int] | None = None
    """Tokens each answer reports: {"input": n, "output": m}."""
    _calls: list[JudgeCall] = PrivateAttr(default_factory=list)
    _seen: Counter[str] = PrivateAttr(default_factory=Counter)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def calls(self) -> list[JudgeCall]:
        """Every call made, in order."""
        return self._calls

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        prompt = request_text(llm_request)
        with self._lock:
            sample = self._seen[prompt]
            self._seen[prompt] += 1
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        try:
            text = self.answer(prompt, sample)
        except Exception as exc:
            self._calls.append(JudgeCall(prompt, sample, None, f"{type(exc).__name__}: {exc}"))
            raise
        self._calls.append(JudgeCall(prompt, sample, text))
        yield self._response(text)

    def _response(self, text: str | None) -> LlmResponse:
        return text_response(text, self.usage, self.model)


def request_text(request: LlmRequest) -> str:
    """The text of every part of a model request."""
    return "".join(p.text or "" for c in request.contents for p in c.parts or [])


def text_response(text: str | None, usage: dict[str, int] | None, model: str) -> LlmResponse:
    """A scripted model's answer: `text` in one part (None: no content), with the tokens
    `usage` gives ({"input": n, "output": m})."""
    metadata = None
    if usage is not None:
        metadata = types.GenerateContentResponseUsageMetadata(
            prompt_token_count=usage.get("input"), candidates_token_count=usage.get("output")
        )
    content = None if text is None else types.Content(role="model", parts=[types.Part(text=text)])
    return LlmResponse(content=content, usage_metadata=metadata, model_version=model)
