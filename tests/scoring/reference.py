"""Pure-Python references for the SQL scorers, for the tests that hold the two together.

Each function computes one metric for one turn the slow, obvious way; the property tests
run random turns through both and require the same numbers. They check the shipped SQL,
so they live here with the tests, not in the package.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from tracegrade.scoring.text import rouge_tokens, unigram_tokens
from tracegrade.store.canonical import canonical_args


def token_f1(actual: Sequence[str], reference: Sequence[str]) -> float:
    """ROUGE-1's F-measure of two token lists, with rouge-score's arithmetic.

    Overlap is clipped (a token counts as often as it occurs on both sides);
    P = overlap / len(actual), R = overlap / len(reference), F = 2PR / (P + R), and 0.0
    without overlap, which includes either side being empty.
    """
    reference_counts = Counter(reference)
    overlap = sum(min(n, reference_counts[token]) for token, n in Counter(actual).items())
    if not overlap:
        return 0.0
    precision = overlap / len(actual)
    recall = overlap / len(reference)
    return 2 * precision * recall / (precision + recall)


def rouge1_f(actual: str, reference: str) -> float:
    """ADK's `response_match_score` for one turn: ROUGE-1 F of actual vs reference text."""
    return token_f1(rouge_tokens(actual), rouge_tokens(reference))


def unigram_f1(actual: str, reference: str) -> float:
    """`response_unigram_f1` for one turn: the same F-measure over `unigram_tokens`."""
    return token_f1(unigram_tokens(actual), unigram_tokens(reference))


@dataclass(frozen=True)
class Call:
    name: str
    args: dict[str, Any] | None


def call_matches(actual: Call, expected: Call, mode: str = "EXACT") -> bool:
    if actual.name != expected.name:
        return False
    if mode == "IGNORE":
        return True
    if mode == "SUBSET":
        if not isinstance(expected.args, dict) or not isinstance(actual.args, dict):
            return False
        return all(
            key in actual.args and canonical_args(actual.args[key]) == canonical_args(value)
            for key, value in expected.args.items()
        )
    return canonical_args(actual.args) == canonical_args(expected.args)


def trajectory_score(
    actual: Sequence[Call],
    expected: Sequence[Call],
    match_type: str,
    modes: dict[str, str] | None = None,
    default_mode: str = "EXACT",
) -> float:
    def match(a: Call, e: Call) -> bool:
        return call_matches(a, e, (modes or {}).get(e.name, default_mode))

    if match_type == "EXACT":
        return float(len(actual) == len(expected) and all(map(match, actual, expected)))
    if match_type == "IN_ORDER":
        consumed = 0
        for call in actual:
            if consumed < len(expected) and match(call, expected[consumed]):
                consumed += 1
        return float(consumed == len(expected))
    if match_type == "SUBSET":
        return float(all(any(match(a, e) for e in expected) for a in actual))
    if match_type == "SUPERSET":
        return float(all(any(match(a, e) for a in actual) for e in expected))
    matched = _greedy_matches(actual, expected, match)
    if match_type == "ANY_ORDER":
        return float(matched == len(expected))
    if match_type == "PRECISION":
        return matched / len(actual) if actual else float(not expected)
    if match_type == "RECALL":
        return matched / len(expected) if expected else 1.0
    raise ValueError(match_type)


def _greedy_matches(actual: Sequence[Call], expected: Sequence[Call], match: Any) -> int:
    unused = list(actual)
    matched = 0
    for want in expected:
        hit = next((i for i, call in enumerate(unused) if match(call, want)), None)
        if hit is not None:
            del unused[hit]
            matched += 1
    return matched


def tool_efficiency(calls: Sequence[Call]) -> float | None:
    if not calls:
        return None
    distinct = {(c.name, canonical_args(c.args)) for c in calls}
    return len(distinct) / len(calls)


def repeated_calls(calls: Sequence[Call]) -> dict[tuple[str, str | None], int]:
    """(name, canonical args) of each call made more than once, with how many times."""
    times = Counter((c.name, canonical_args(c.args)) for c in calls)
    return {call: n for call, n in times.items() if n > 1}


def consecutive_repeats(calls: Sequence[Call]) -> int:
    return sum(
        1
        for before, after in pairwise(calls)
        if before.name == after.name and canonical_args(before.args) == canonical_args(after.args)
    )


def cost_usd(calls: Sequence[dict[str, Any]], prices: dict[str, dict[str, float]]) -> float | None:
    """calls: {model, input, output, reasoning, cached}; None if any call is unpriced."""
    total = 0.0
    for call in calls:
        price = _price(call["model"], prices)
        if price is None or call["input"] is None or call["output"] is None:
            return None
        cached = call.get("cached") or 0
        reasoning = call.get("reasoning") or 0
        total += (
            (call["input"] - cached) * price["input"]
            + cached * price.get("cached_input", price["input"])
            + call["output"] * price["output"]
            + reasoning * (price.get("reasoning", price["output"]) - price["output"])
        ) / 1e6
    return total


def _price(model: str | None, prices: dict[str, dict[str, float]]) -> dict[str, float] | None:
    if model is None:
        return None
    keys = [k for k in prices if model == k or model.startswith(k + "-") or model.endswith("/" + k)]
    return prices[max(keys, key=len)] if keys else None


def covered_seconds(intervals: Sequence[tuple[int, int]]) -> float:
    """The length of the union of (start_ns, end_ns) intervals, in seconds: merged one by one."""
    merged: list[list[int]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return sum(end - start for start, end in merged) / 1e9


def duration_breakdown(
    latency_ms: float,
    model: Sequence[tuple[int, int]],
    tool: Sequence[tuple[int, int]],
    nested_model: Sequence[tuple[int, int]],
) -> dict[str, float]:
    """invocation_duration's detail: model time, tool time less the model time inside tools
    (AgentTool), and the rest, each rounded to the millisecond."""
    model_s = covered_seconds(model)
    tool_s = max(covered_seconds(tool) - covered_seconds(nested_model), 0.0)
    framework = max(latency_ms / 1000 - model_s - tool_s, 0.0)
    return {"model": round(model_s, 3), "tool": round(tool_s, 3), "framework": round(framework, 3)}
