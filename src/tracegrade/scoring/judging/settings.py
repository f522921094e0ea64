"""How judges are called: concurrency, timeouts, retries and the budget of one scoring.

`adk eval` lets at most 4 judge calls run at once across a whole run (LocalEvalService's
case parallelism; each judge metric's `parallelism_limit` defaults to 1), retries 429/5xx
seven times from 5 s, and sets no timeout. Judge calls are independent requests, so here
they share one pool across turns, cases, samples and metrics (`concurrency`), each try has
a timeout, and a budget can stop the calling.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tracegrade.errors import ConfigError

MAX_BACKOFF_S = 60.0

Stop = Callable[[], "str | None"]
"""Asked while judges are called: why the scoring must stop (serve's time limit, its client
gone), or None to go on."""


class JudgeSettings(BaseModel):
    """`--judge-concurrency`, `--judge-timeout`, `--judge-retries`, `--judge-budget-usd`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    concurrency: int = Field(default=64, ge=1, description="judge calls in flight at once")
    timeout_s: float = Field(default=120.0, gt=0, description="seconds one try may take")
    retries: int = Field(default=6, ge=0, description="retries of a 429, 5xx or timed-out try")
    backoff_s: float = Field(
        default=2.0, ge=0, description="wait before the first retry; doubles, up to 60 s"
    )
    budget_usd: float | None = Field(
        default=None, ge=0, description="stop calling once the judges' estimated cost reaches it"
    )
    max_calls: int | None = Field(
        default=None, ge=0, description="stop calling once this many judge calls were made"
    )

    def backoff(self, attempt: int) -> float:
        """The wait after failed try number `attempt` (from 1), before jitter."""
        return float(min(MAX_BACKOFF_S, self.backoff_s * 2 ** (attempt - 1)))


def judge_settings(value: Any) -> JudgeSettings:
    """The `judge` object of a scoring request (None: the defaults)."""
    if value is None:
        return JudgeSettings()
    if isinstance(value, JudgeSettings):
        return value
    try:
        return JudgeSettings.model_validate(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"judge settings: {where}: {first['msg']}") from None
