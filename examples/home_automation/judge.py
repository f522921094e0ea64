"""The judge of the example's `hallucinations_v1` metric, registered with ADK as "home-judge".

With `GOOGLE_API_KEY` set (or `GOOGLE_GENAI_USE_VERTEXAI=1`) it is Gemini
(`gemini-2.5-flash`, or `$HOME_JUDGE_MODEL`); otherwise, or with `HOME_JUDGE_MODEL=scripted`,
a scripted judge answering as a careful one would: it splits each response into sentences and
finds every sentence supported by the tool results, except the one `bedside_lamp_off` gets
wrong. ADK's judges resolve a judge model by name through ADK's LLMRegistry, so registering
the class here makes "home-judge" a judge for `adk eval` and tracegrade alike.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncGenerator

from google.adk.models.base_llm import BaseLlm
from google.adk.models.google_llm import Gemini
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.models.registry import LLMRegistry

from tracegrade.testing import ScriptedJudge, judge_answers

NAME = "home-judge"
GEMINI_JUDGE = "gemini-2.5-flash"

# The scripted judge's verdicts: a label and its reason for each sentence it finds not
# supported by what the agent's tools returned.
NOT_SUPPORTED = {
    "The bedside lamp is now off.": (
        "contradictory",
        "it switched off device_1, the ceiling light, not the lamp",
    ),
}


def scripted_answer(prompt: str, sample: int) -> str:
    """hallucinations_v1 asks twice per response: split it into sentences, then label each."""
    if judge_answers.kind(prompt) == "segment":
        return judge_answers.segment(prompt)
    return judge_answers.validate(prompt, NOT_SUPPORTED)


def has_gemini() -> bool:
    wanted = os.environ.get("HOME_JUDGE_MODEL", "")
    vertex = os.environ.get("GOOGLE_GENAI_USE_VERTEXAI", "").lower() in ("1", "true")
    return wanted != "scripted" and (bool(os.environ.get("GOOGLE_API_KEY")) or vertex)


class HomeJudge(BaseLlm):
    """Answers through Gemini or the scripted judge, as the module doc says."""

    model: str = NAME

    @classmethod
    def supported_models(cls) -> list[str]:
        return [NAME]

    def judge(self) -> BaseLlm:
        if has_gemini():
            return Gemini(model=os.environ.get("HOME_JUDGE_MODEL") or GEMINI_JUDGE)
        return ScriptedJudge(model=f"{NAME}-scripted", answer=scripted_answer)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        judge = self.judge()
        request = llm_request.model_copy(update={"model": judge.model})
        async with contextlib.aclosing(judge.generate_content_async(request, stream)) as answers:
            async for answer in answers:
                yield answer


LLMRegistry.register(HomeJudge)
