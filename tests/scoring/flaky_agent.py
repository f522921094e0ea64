"""An agent whose scripted model answers differently on each repeat: right, wrong, right."""

from __future__ import annotations

from typing import Any

from google.adk.agents import LlmAgent

from tracegrade.testing import ScriptedLlm


def lookup(city: str) -> dict[str, Any]:
    """Look a city up."""
    return {"city": city}


def _answer(city: str) -> list[dict[str, Any]]:
    return [
        {
            "tool_calls": [{"name": "lookup", "args": {"city": city}}],
            "usage": {"input": 1000, "output": 100},
        },
        {"text": f"Found {city}.", "usage": {"input": 1200, "output": 50}},
    ]


root_agent = LlmAgent(
    name="flaky",
    model=ScriptedLlm.from_responses(
        [*_answer("Paris"), *_answer("Rome"), *_answer("Paris")], model="gemini-2.5-flash"
    ),
    tools=[lookup],
)
