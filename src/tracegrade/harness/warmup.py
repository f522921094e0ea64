"""Warming google-adk up before the first timed turn.

ADK imports much of itself on the first turn a process runs (its workflow engine, auth,
FastAPI's models; pydantic builds their schemas): 0.3-1.8 s measured, which would land in
the latency of whichever case runs first and make latency diffs noise. `warm_up` runs one
turn of a built-in agent first (a model that calls one tool, then answers; nothing of the
user's runs), under a parent span that is not sampled, so no span of it is recorded.
"""

from __future__ import annotations

import gc
from collections.abc import AsyncGenerator
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types
from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

_APP = "tracegrade_warmup"


class _WarmUpModel(BaseLlm):
    """Calls the tool once, then answers."""

    model: str = "tracegrade-warmup"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        answered = any(p.function_response for c in llm_request.contents for p in c.parts or [])
        part = (
            types.Part(text="ready")
            if answered
            else types.Part(function_call=types.FunctionCall(name="noop", args={}))
        )
        # Usage reported (as none), so ADK logs no "missing token usage" warning naming an
        # agent the user never wrote.
        usage = types.GenerateContentResponseUsageMetadata(
            prompt_token_count=0, candidates_token_count=0, total_token_count=0
        )
        yield LlmResponse(content=types.Content(role="model", parts=[part]), usage_metadata=usage)


def noop() -> dict[str, Any]:
    """Does nothing."""
    return {}


async def warm_up(run_config: Any) -> None:
    """One untraced turn through ADK's runner, flows and tool calling."""
    agent = LlmAgent(name=_APP, model=_WarmUpModel(), tools=[noop])
    runner = InMemoryRunner(agent=agent, app_name=_APP)
    session = await runner.session_service.create_session(app_name=_APP, user_id=_APP)
    message = types.Content(role="user", parts=[types.Part(text="warm up")])
    with trace.use_span(_UNSAMPLED, end_on_exit=False):
        async for _ in runner.run_async(
            user_id=_APP, session_id=session.id, new_message=message, run_config=run_config
        ):
            pass
    await runner.close()
    # The imports leave a heap whose first full collection (0.3-0.5 s measured) would
    # otherwise fall in the first timed turn: collect now, and keep what lives on (modules,
    # classes) out of the collections during the run (`cool_down` undoes it).
    gc.collect()
    gc.freeze()


def cool_down() -> None:
    """Hand the objects `warm_up` froze back to the garbage collector."""
    gc.unfreeze()


# A parent whose children the SDK's default (parent-based) sampler drops.
_UNSAMPLED = NonRecordingSpan(
    SpanContext(trace_id=1, span_id=1, is_remote=False, trace_flags=TraceFlags(TraceFlags.DEFAULT))
)
