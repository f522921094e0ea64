"""The model ADK's evaluators call: a stand-in that hands each request to tracegrade.

ADK's judges build their model inside `__init__` from the criterion's judge name
(`LLMRegistry.resolve(name)(model=name)`), with no way to pass a model in. tracegrade
registers one `BaseLlm` class for names `tracegrade-judge/<token>` and gives each evaluator
it builds a fresh token, routed to the coroutine that answers for that evaluator (the cache,
the pool of calls, the real judge). Public ADK API only: `LLMRegistry.register`, `BaseLlm`.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import ClassVar

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.models.registry import LLMRegistry

Answer = Callable[[LlmRequest], Awaitable[LlmResponse]]

PREFIX = "tracegrade-judge"
_ROUTES: dict[str, Answer] = {}


class RoutedJudge(BaseLlm):
    """Answers through the route registered under its model name."""

    NAMES: ClassVar[str] = rf"{PREFIX}/.*"

    @classmethod
    def supported_models(cls) -> list[str]:
        return [cls.NAMES]

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        route = _ROUTES.get(self.model)
        if route is None:
            raise RuntimeError(f"no judge is routed to '{self.model}' any more")
        yield await route(llm_request)


_registered = False


@contextmanager
def routed(answer: Answer) -> Iterator[str]:
    """A judge name that, while the block runs, resolves to a model answering with `answer`."""
    global _registered
    if not _registered:
        LLMRegistry.register(RoutedJudge)
        _registered = True
    name = f"{PREFIX}/{uuid.uuid4().hex}"
    _ROUTES[name] = answer
    try:
        yield name
    finally:
        del _ROUTES[name]
