"""The bench's judge: answers every judge prompt favourably after a fixed delay (a real
judge's latency), counts its calls and the most in flight at once. Registered with ADK's
LLMRegistry as "bench-judge", so ADK's evaluators and tracegrade resolve the same class.
Plain google-adk: the ADK side of the bench imports nothing of tracegrade."""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import AsyncGenerator
from typing import ClassVar

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.models.registry import LLMRegistry
from google.genai import types

NAME = "bench-judge"
DELAY_S = float(os.environ.get("BENCH_JUDGE_DELAY_S", "0.2"))
_RUBRIC = re.compile(r"^\*\s+\[id: (?P<id>[^\]]+)\] (?P<text>.*)$", re.M)


def answer(prompt: str) -> str:
    if '"is_the_agent_response_valid"' in prompt:
        return json.dumps({"reasoning": "bench", "is_the_agent_response_valid": "valid"})
    tail = prompt[prompt.rfind("<properties>") :]
    return "\n\n".join(
        f"ID: {m['id']}\nProperty: {m['text']}\nRationale: bench\nVerdict: yes"
        for m in _RUBRIC.finditer(tail)
    )


class BenchJudge(BaseLlm):
    model: str = NAME
    calls: ClassVar[int] = 0
    in_flight: ClassVar[int] = 0
    peak: ClassVar[int] = 0

    @classmethod
    def supported_models(cls) -> list[str]:
        return [NAME]

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        cls = BenchJudge
        cls.calls += 1
        cls.in_flight += 1
        cls.peak = max(cls.peak, cls.in_flight)
        try:
            await asyncio.sleep(DELAY_S)
        finally:
            cls.in_flight -= 1
        prompt = "".join(p.text or "" for c in llm_request.contents for p in c.parts or [])
        content = types.Content(role="model", parts=[types.Part(text=answer(prompt))])
        yield LlmResponse(content=content)


LLMRegistry.register(BenchJudge)

CRITERIA = {
    "final_response_match_v2": {
        "threshold": 0.5,
        "judge_model_options": {"judge_model": NAME, "num_samples": 5},
    },
    "rubric_based_final_response_quality_v1": {
        "threshold": 0.5,
        "judge_model_options": {"judge_model": NAME, "num_samples": 5},
        "rubrics": [
            {
                "rubric_id": "concise",
                "rubric_content": {"text_property": "The answer is at most two sentences."},
            }
        ],
    },
}
"""The bench's two judged metrics, as a test_config.json names them."""
