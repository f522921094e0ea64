"""Synthetic eval turns for bench/score: 3 expected calls, 3-5 actual, 20-40 word texts."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

TOOLS = [f"tool_{i:02d}" for i in range(20)]
WORDS = (
    [
        "weather",
        "paris",
        "temperature",
        "sunny",
        "cloudy",
        "rain",
        "forecast",
        "tomorrow",
        "today",
        "degrees",
        "celsius",
        "fahrenheit",
        "humidity",
        "wind",
        "light",
        "kitchen",
        "bedroom",
        "living",
        "room",
        "turned",
        "switched",
        "device",
        "thermostat",
        "set",
        "running",
        "booked",
        "flight",
        "hotel",
        "cancelled",
        "orders",
        "invoice",
        "total",
        "payment",
        "the",
        "is",
        "in",
        "at",
        "and",
        "your",
        "has",
        "been",
        "now",
        "will",
        "be",
        "with",
        "for",
        "it",
        "a",
        "of",
        "to",
    ]
    + [f"word{i}" for i in range(1500)]
    + ["70.7", "14:00", "21.5°C", "café", "東京", "déjà"]
)


def tool_schema(tool: str) -> dict[str, Any]:
    """The parameter schema each synthetic tool declares, as ADK writes a function's (JSON
    Schema), with an enum and a range so the check has work to do."""
    return {
        "type": "object",
        "title": f"{tool}Params",
        "properties": {
            "city": {"type": "string", "title": "City", "enum": ["Paris", "Rome", "Oslo"]},
            "count": {"type": "integer", "title": "Count", "minimum": 0, "maximum": 10},
        },
        "required": ["city", "count"],
    }


@dataclass(frozen=True)
class Turn:
    actual: list[tuple[str, dict[str, Any]]]
    expected: list[tuple[str, dict[str, Any]]]
    response: str
    reference: str


REPEATS = 5


def turns(n: int, seed: int = 7, words: tuple[int, int] = (20, 40)) -> list[Turn]:
    """`n` turns: n / REPEATS cases, each run REPEATS times. A case's expected calls and
    reference are the same in every repeat (as in a real eval run); what the agent did
    differs from repeat to repeat. References have `words` words (20-40; 150-300 for
    answers of 1-2 KB, as bench/score's end-to-end run uses)."""
    rng = random.Random(seed)
    cases = [_case(rng, words) for _ in range(-(-n // REPEATS))]
    return [_turn(rng, *cases[i // REPEATS]) for i in range(n)]


def _call(rng: random.Random) -> tuple[str, dict[str, Any]]:
    return rng.choice(TOOLS), {
        "city": rng.choice(["Paris", "Rome", "Oslo"]),
        "count": rng.choice([1, 2, 3.0]),
    }


def _text(rng: random.Random, words: tuple[int, int] = (20, 40)) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(*words))) + "."


def _case(
    rng: random.Random, words: tuple[int, int]
) -> tuple[list[tuple[str, dict[str, Any]]], str]:
    return [_call(rng) for _ in range(3)], _text(rng, words)


def _turn(rng: random.Random, expected: list[tuple[str, dict[str, Any]]], reference: str) -> Turn:
    actual = list(expected)
    roll = rng.random()
    if roll < 0.3:
        rng.shuffle(actual)
    if roll > 0.5:
        actual.insert(rng.randint(0, len(actual)), _call(rng))
    if roll > 0.8:
        actual.insert(rng.randint(0, len(actual)), _call(rng))
    words = reference.split()
    response = " ".join(w for w in words if rng.random() > 0.2) + " " + _text(rng)[:60]
    return Turn(actual, expected, response, reference)
