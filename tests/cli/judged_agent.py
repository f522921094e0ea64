"""An agent whose module registers its judge, "agent-judge", with ADK's LLMRegistry, as the
README allows: no criteria file names the module, only the agent does."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.models.registry import LLMRegistry

from tracegrade.testing import ScriptedJudge, ScriptedLlm, judge_answers

NAME = "agent-judge"


class AgentJudge(BaseLlm):
    """A scripted judge answering every judged metric as valid."""

    model: str = NAME

    @classmethod
    def supported_models(cls) -> list[str]:
        return [NAME]

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        judge = ScriptedJudge(model=NAME, answer=judge_answers.auto)
        async with contextlib.aclosing(judge.generate_content_async(llm_request, stream)) as said:
            async for answer in said:
                yield answer


LLMRegistry.register(AgentJudge)

root_agent = LlmAgent(
    name="judged", model=ScriptedLlm.by_user_text({"Hello": [{"text": "Hello to you."}]})
)
