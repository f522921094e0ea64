"""An agent whose tool definitions break lint-tools rules (tests/scoring/test_tool_lint.py)."""

from __future__ import annotations

from typing import Any

from google.adk.agents import LlmAgent
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.tool_context import ToolContext
from google.genai import types

from tracegrade.testing import ScriptedLlm


def getWeather(city: str) -> dict[str, Any]:
    """Current weather."""
    return {"city": city}


def weather(city: str) -> dict[str, Any]:
    """Current weather."""
    return {"city": city}


def set_mode(mode: str) -> dict[str, Any]:
    """Set the heating mode of the house.

    Args:
        mode: 'heat' or 'cool'.
    """
    return {"mode": mode}


class Search(BaseTool):
    """Declared by hand with an untyped parameter and a required one it never declares."""

    def __init__(self) -> None:
        super().__init__(name="search_web", description="")

    def _get_declaration(self) -> types.FunctionDeclaration:
        return types.FunctionDeclaration(
            name=self.name,
            description=self.description,
            parameters_json_schema={
                "type": "object",
                "properties": {"query": {"description": "what to look for"}},
                "required": ["query", "limit"],
            },
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        return {}


root_agent = LlmAgent(
    name="messy",
    model=ScriptedLlm.from_responses([{"text": "hi"}]),
    tools=[getWeather, weather, set_mode, Search()],
)
