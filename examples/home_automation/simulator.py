"""The simulated user of the example's scenario case, registered with ADK as "home-user".

`test_config.json`'s `user_simulator_config` names "home-user": ADK's user simulator asks it
for each next user message of `bedtime_scenario`. With `GOOGLE_API_KEY` set (or
`GOOGLE_GENAI_USE_VERTEXAI=1`) it is Gemini (`gemini-2.5-flash`, or `$HOME_USER_MODEL`);
otherwise, or with `HOME_USER_MODEL=scripted`, a scripted user reacting to the agent's
last message as the conversation plan says.
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

from tracegrade.testing import ScriptedUser

NAME = "home-user"
GEMINI_USER = "gemini-2.5-flash"

# What the scripted user says after the agent's last message (a substring of it); ADK's
# stop signal `</finished>` ends the conversation once the plan is done.
REPLIES = {
    "bedside lamp in the Bedroom is now on": "Thanks. How warm is the Bedroom?",
    "Bedroom is at": "</finished>",
}


def has_gemini() -> bool:
    wanted = os.environ.get("HOME_USER_MODEL", "")
    vertex = os.environ.get("GOOGLE_GENAI_USE_VERTEXAI", "").lower() in ("1", "true")
    return wanted != "scripted" and (bool(os.environ.get("GOOGLE_API_KEY")) or vertex)


class HomeUser(BaseLlm):
    """Answers through Gemini or the scripted user, as the module doc says."""

    model: str = NAME

    @classmethod
    def supported_models(cls) -> list[str]:
        return [NAME]

    def user(self) -> BaseLlm:
        if has_gemini():
            return Gemini(model=os.environ.get("HOME_USER_MODEL") or GEMINI_USER)
        # Anything unplanned: the user asks again (the turn limit ends a looping agent).
        return ScriptedUser.from_replies(
            REPLIES, otherwise="Please switch on the bedside lamp.", model=f"{NAME}-scripted"
        )

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        user = self.user()
        request = llm_request.model_copy(update={"model": user.model})
        async with contextlib.aclosing(user.generate_content_async(request, stream)) as answers:
            async for answer in answers:
                yield answer


LLMRegistry.register(HomeUser)
