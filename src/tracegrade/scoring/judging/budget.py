"""What judge calls cost, and the budget that stops them (`--judge-budget-usd`).

A call's cost is its reported tokens at the judge model's price (the `prices` table's
rates, matched as `cost_usd.sql` matches them). Before a call, its cost is estimated from
the prompt's length (about 4 characters a token) and the output tokens this metric's
earlier calls used (600 until one answered); the call is made only while the spent cost,
the estimates of calls in flight and its own fit in the budget, and (`max_calls`, serve's
daily budget of calls) while fewer calls than that were made. Once one does not fit, no
more calls are made: the rest is reported unjudged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

CHARS_PER_TOKEN = 4
DEFAULT_OUTPUT_TOKENS = 600


class Usage(Protocol):
    input_tokens: int | None
    output_tokens: int | None
    reasoning_tokens: int | None


@dataclass(frozen=True)
class Price:
    """USD per 1M tokens."""

    input: float
    output: float
    reasoning: float | None = None

    def cost(self, usage: Usage) -> float | None:
        """None when the judge reported no tokens: unknown is never 0."""
        if usage.input_tokens is None or usage.output_tokens is None:
            return None
        thoughts = usage.reasoning_tokens or 0
        extra = thoughts * (
            (self.reasoning if self.reasoning is not None else self.output) - self.output
        )
        return (usage.input_tokens * self.input + usage.output_tokens * self.output + extra) / 1e6


def price_for(model: str, table: Mapping[str, Mapping[str, Any]]) -> Price | None:
    """The longest price key naming `model` (`gemini-2.5-flash` prices
    `gemini-2.5-flash-001` and `models/gemini-2.5-flash`), as cost_usd.sql matches."""
    keys = [k for k in table if model == k or model.startswith(k + "-") or model.endswith("/" + k)]
    if not keys:
        return None
    entry = table[max(keys, key=len)]
    return Price(float(entry["input"]), float(entry["output"]), _optional(entry.get("reasoning")))


def _optional(value: Any) -> float | None:
    return None if value is None else float(value)


class Budget:
    def __init__(self, limit_usd: float | None, max_calls: int | None = None) -> None:
        self.limit = limit_usd
        self.max_calls = max_calls
        self.calls = 0
        self.spent = 0.0
        self.in_flight = 0.0
        self.exhausted = False
        self._outputs: dict[str, tuple[int, int]] = {}

    def estimate(self, price: Price | None, prompt: str, metric: str) -> float:
        if price is None:
            return 0.0
        count, total = self._outputs.get(metric, (0, 0))
        output = total / count if count else DEFAULT_OUTPUT_TOKENS
        return (len(prompt) / CHARS_PER_TOKEN * price.input + output * price.output) / 1e6

    def reserve(self, estimate: float) -> bool:
        """Whether a call estimated at `estimate` may be made; once one may not, none may."""
        if self.limit is None and self.max_calls is None:
            return True
        over_cost = self.limit is not None and self.spent + self.in_flight + estimate > self.limit
        over_calls = self.max_calls is not None and self.calls >= self.max_calls
        if self.exhausted or over_cost or over_calls:
            self.exhausted = True
            return False
        self.calls += 1
        if self.limit is not None:
            self.in_flight += estimate
        return True

    def settle(
        self, estimate: float, actual: float | None, metric: str, output_tokens: int | None
    ) -> None:
        if self.limit is not None:
            self.in_flight -= estimate
            self.spent += actual if actual is not None else estimate
        if output_tokens is not None:
            count, total = self._outputs.get(metric, (0, 0))
            self._outputs[metric] = (count + 1, total + output_tokens)
