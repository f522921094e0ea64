"""Asking a judge: the cache first, then one shared pool of calls with a timeout per try,
retries with backoff on 429, 5xx and timeouts, and the budget.

Every answer a scoring uses is an `Answer`: reused from `judgements` (same metric, turn,
judge, prompt, settings and sample), new, failed after every retry, or unjudged because the
budget was spent. New and failed ones are stored by the runner once parsed.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import random
import time
import uuid
from dataclasses import dataclass
from typing import Any

from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from tracegrade.scoring.judging.budget import Budget, Price
from tracegrade.scoring.judging.resolve import Judge
from tracegrade.scoring.judging.settings import JudgeSettings

RETRY_STATUS = frozenset({408, 429, 500, 502, 503, 504})  # ADK's own retry codes

CacheKey = tuple[str, str, str, str, str, int]
"""(metric, turn_id, judge_model, prompt_sha, config_sha, sample)"""


@dataclass
class Answer:
    """One judge answer a scoring uses, and what its metric's parser read in it."""

    metric: str
    turn_id: str
    judge_model: str
    prompt: str
    prompt_sha: str
    config_sha: str
    sample: int
    step: str
    outcome: str
    """answered, failed, unjudged (budget spent) or not_applicable (see error)"""
    response: str | None = None
    error: str | None = None
    cached: bool = False
    judgement_id: str | None = None
    model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    reasoning_tokens: int | None = None
    cost_usd: float | None = None
    latency_ms: float | None = None
    attempts: int = 0
    score: float | None = None
    verdicts: Any = None
    rationale: str | None = None

    @property
    def key(self) -> CacheKey:
        return (self.metric, self.turn_id, self.judge_model, self.prompt_sha, self.config_sha,
                self.sample)  # fmt: skip

    @property
    def new(self) -> bool:
        """A call this scoring made (to be stored)."""
        return not self.cached and self.outcome in ("answered", "failed")

    def as_response(self) -> LlmResponse:
        """The answer as the LlmResponse an ADK parser reads: its text in one part."""
        if self.response is None:
            return LlmResponse(error_code=self.error) if self.error else LlmResponse()
        part = types.Part(text=self.response)
        return LlmResponse(content=types.Content(role="model", parts=[part]))


class JudgeCallFailed(Exception):
    """A judge call that failed after every retry; raised to ADK-driven evaluators."""


class JudgeBudgetSpent(Exception):
    """The judge budget is spent: the call was not made."""


def request_text(request: LlmRequest) -> str:
    """The text of every part of a model request: what a judge is asked."""
    return "".join(p.text or "" for c in request.contents for p in c.parts or [])


def to_evaluator(answer: Answer) -> LlmResponse:
    """What an ADK evaluator gets back for `answer`: the judge's response, or the error
    that stops its evaluation (a spent budget, a call that failed after every retry)."""
    if answer.outcome == "unjudged":
        raise JudgeBudgetSpent(answer.error)
    if answer.outcome == "failed":
        raise JudgeCallFailed(answer.error)
    return answer.as_response()


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def config_sha(config: types.GenerateContentConfig | None) -> str:
    """The judge's generation settings, without transport settings (retry options)."""
    dumped = config.model_dump(mode="json", exclude_none=True) if config else {}
    http = dumped.get("http_options") or {}
    http.pop("retry_options", None)
    if http:
        dumped["http_options"] = http
    else:
        dumped.pop("http_options", None)
    return sha256(json.dumps(dumped, sort_keys=True))


def without_retry_options(config: types.GenerateContentConfig) -> types.GenerateContentConfig:
    """ADK puts its retry options on every judge request; tracegrade retries itself."""
    if config.http_options is None or config.http_options.retry_options is None:
        return config
    http = config.http_options.model_copy(update={"retry_options": None})
    return config.model_copy(update={"http_options": http})


class JudgeCaller:
    """The calls of one scoring: cache lookups, one pool, retries, the budget."""

    def __init__(
        self,
        settings: JudgeSettings,
        cache: dict[CacheKey, Answer],
        prices: dict[str, Price | None],
    ) -> None:
        self.settings = settings
        self.cache = cache
        self.prices = prices
        self.budget = Budget(settings.budget_usd, settings.max_calls)
        self._pool = asyncio.Semaphore(settings.concurrency)

    async def ask(
        self,
        metric: str,
        turn_id: str,
        judge: Judge,
        prompt: str,
        config: types.GenerateContentConfig,
        sample: int,
        step: str = "judge",
    ) -> Answer:
        answer = Answer(metric, turn_id, judge.name, prompt, sha256(prompt), config_sha(config),
                        sample, step, "answered")  # fmt: skip
        cached = self.cache.get(answer.key)
        if cached is not None:
            return _reused(cached, answer)
        price = self.prices.get(judge.name)
        # A slot of the pool first, then the budget: only calls about to be made hold an
        # estimate, so a long queue does not spend the budget before anything is called.
        async with self._pool:
            estimate = self.budget.estimate(price, prompt, metric)
            if not self.budget.reserve(estimate):
                answer.outcome, answer.error = "unjudged", "the judge budget was spent"
                return answer
            await self._call(judge, answer, without_retry_options(config))
        answer.cost_usd = price.cost(answer) if price else None
        self.budget.settle(estimate, answer.cost_usd, metric, answer.output_tokens)
        return answer

    async def _call(
        self, judge: Judge, answer: Answer, config: types.GenerateContentConfig
    ) -> None:
        request = LlmRequest(
            model=judge.model,
            contents=[types.Content(role="user", parts=[types.Part(text=answer.prompt)])],
            config=config,
        )
        started = time.monotonic()
        answer.judgement_id, answer.model = uuid.uuid4().hex, judge.model
        try:
            response = await self._with_retries(judge, request, answer)
        except Exception as exc:  # every try failed: the turn is not judged, and says why
            tries = f" (after {answer.attempts} tries)" if answer.attempts > 1 else ""
            answer.outcome, answer.error = "failed", _describe(exc) + tries
        else:
            _read(response, answer)
        answer.latency_ms = (time.monotonic() - started) * 1000

    async def _with_retries(self, judge: Judge, request: LlmRequest, answer: Answer) -> LlmResponse:
        while True:
            answer.attempts += 1
            try:
                return await asyncio.wait_for(
                    _first_response(judge, request), self.settings.timeout_s
                )
            except Exception as exc:
                if answer.attempts > self.settings.retries or not retryable(exc):
                    raise
            # The slot stays held while waiting: a judge answering 429 gets fewer calls.
            wait = self.settings.backoff(answer.attempts)
            await asyncio.sleep(wait * random.uniform(0.5, 1.0))  # jitter spreads a 429 storm


async def _first_response(judge: Judge, request: LlmRequest) -> LlmResponse:
    async with contextlib.aclosing(judge.llm.generate_content_async(request)) as responses:
        async for response in responses:
            return response
    raise RuntimeError("the judge model returned no response")


def retryable(exc: BaseException) -> bool:
    """Worth another try: a timeout, a dropped connection, or HTTP 408, 429 or 5xx."""
    if isinstance(exc, TimeoutError | ConnectionError):
        return True
    return status_code(exc) in RETRY_STATUS


def status_code(exc: BaseException) -> int | None:
    """The HTTP status an SDK error carries (google-genai `code`, litellm/httpx
    `status_code`), if any."""
    for value in (
        getattr(exc, "code", None),
        getattr(exc, "status_code", None),
        getattr(getattr(exc, "response", None), "status_code", None),
    ):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def _read(response: LlmResponse, answer: Answer) -> None:
    parts = response.content.parts if response.content and response.content.parts else []
    texts = [p.text for p in parts if p.text]
    answer.response = "\n".join(texts) if texts else None
    if response.error_code or response.error_message:
        answer.error = f"{response.error_code or 'error'}: {response.error_message or ''}".strip()
    usage = response.usage_metadata
    if usage is not None:
        thoughts = usage.thoughts_token_count
        answer.input_tokens = usage.prompt_token_count
        if usage.candidates_token_count is not None or thoughts is not None:
            answer.output_tokens = (usage.candidates_token_count or 0) + (thoughts or 0)
        answer.reasoning_tokens = thoughts


def _reused(cached: Answer, asked: Answer) -> Answer:
    return Answer(**{**cached.__dict__, "step": asked.step, "cached": True})


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    name = type(exc).__name__
    if isinstance(exc, TimeoutError):
        return f"{name}: no answer within the timeout"
    return f"{name}: {text}" if text else name
