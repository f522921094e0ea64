"""Real google-adk agents whose scripted models make valid and invalid tool calls.

Each agent's tools declare their parameters the ways ADK users do: plain functions (ADK
writes JSON Schema), a tool declared with an explicit JSON Schema that forbids extra
arguments and states ranges, patterns and formats, a tool declared with google-genai's
OpenAPI-style `types.Schema` (upper-case types in the spans), a tool without parameters,
an AgentTool, and sub-agents with tools of their own.
"""

from __future__ import annotations

from typing import Any, Literal

from google.adk.agents import LlmAgent, SequentialAgent
from google.adk.agents.base_agent import BaseAgent
from google.adk.tools.agent_tool import AgentTool
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.tool_context import ToolContext
from google.genai import types

from tests.support.scenarios import call
from tracegrade.testing import ScriptedLlm


def set_temperature(
    room: str, degrees: int, mode: Literal["heat", "cool"] = "heat"
) -> dict[str, Any]:
    """Set a room's thermostat."""
    return {"room": room, "degrees": degrees, "mode": mode}


def current_time() -> dict[str, Any]:
    """The current time."""
    return {"time": "14:00"}


BOOKING_SCHEMA = {
    "type": "object",
    "properties": {
        "guests": {"type": "integer", "minimum": 1, "maximum": 8},
        "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
        "at": {"type": "string", "format": "date-time"},
        "contact": {
            "type": "object",
            "properties": {"email": {"type": "string"}, "zip": {"type": "integer"}},
            "required": ["email"],
        },
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["guests", "code"],
    "additionalProperties": False,
}


class BookTable(BaseTool):
    """A tool declared with an explicit JSON Schema (no extra arguments allowed)."""

    def __init__(self) -> None:
        super().__init__(name="book_table", description="Book a table.")

    def _get_declaration(self) -> types.FunctionDeclaration:
        return types.FunctionDeclaration(
            name=self.name, description=self.description, parameters_json_schema=BOOKING_SCHEMA
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        return {"booked": True}


class DimLights(BaseTool):
    """A tool declared with google-genai's OpenAPI-style Schema."""

    def __init__(self) -> None:
        super().__init__(name="dim_lights", description="Dim the lights in a room.")

    def _get_declaration(self) -> types.FunctionDeclaration:
        return types.FunctionDeclaration(
            name=self.name,
            description=self.description,
            parameters=types.Schema(
                type=types.Type.OBJECT,
                properties={
                    "room": types.Schema(type=types.Type.STRING, enum=["kitchen", "hall"]),
                    "level": types.Schema(type=types.Type.INTEGER, minimum=0, maximum=100),
                    "note": types.Schema(type=types.Type.STRING, nullable=True, max_length=5),
                },
                required=["room", "level"],
            ),
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        return {"dimmed": True}


VALID_CALLS = [
    call("set_temperature", room="bedroom", degrees=21, mode="cool"),
    call(
        "book_table",
        guests=2,
        code="ABC",
        at="2026-12-01T19:00:00Z",
        contact={"email": "a@b.c", "zip": 1000},
        tags=["window"],
    ),
    call("dim_lights", room="hall", level=40, note=None),
    call("current_time"),
]

INVALID_CALLS = [  # each with the (argument, kind) it must be reported with
    (call("set_temperature", room="bedroom", degrees="21"), ("degrees", "wrong_type")),
    (call("set_temperature", room="bedroom"), ("degrees", "missing_argument")),
    (call("set_temperature", room="bedroom", degrees=21, mode="warm"), ("mode", "not_in_enum")),
    (call("book_table", guests=2, code="ABC", seats=3), ("seats", "unexpected_argument")),
    (call("book_table", guests=20, code="ABC"), ("guests", "out_of_range")),
    (call("book_table", guests=2, code="abcd"), ("code", "pattern_mismatch")),
    (call("book_table", guests=2, code="ABC", at="tomorrow"), ("at", "bad_format")),
    (
        call("book_table", guests=2, code="ABC", contact={"zip": 1}),
        ("contact.email", "missing_argument"),
    ),
    (call("book_table", guests=2, code="ABC", tags=["a", 5]), ("tags[1]", "wrong_type")),
    (call("dim_lights", room="hall", level="40"), ("level", "wrong_type")),
    (call("dim_lights", room="garage", level=40), ("room", "not_in_enum")),
    (call("dim_lights", room="hall", level=40, note="too long"), ("note", "out_of_range")),
    (call("current_time", zone="UTC"), ("zone", "unexpected_argument")),
    (call("launch_rocket", target="moon"), ("", "unknown_tool")),
]


def tools_agent(calls: list[dict[str, Any]]) -> BaseAgent:
    """One agent with every kind of tool; its model makes `calls` one after another."""
    script = [{"tool_calls": [c]} for c in calls] + [{"text": "Done."}]
    return LlmAgent(
        name="tools_agent",
        model=ScriptedLlm.from_responses(script),
        tools=[set_temperature, BookTable(), DimLights(), current_time],
    )


def pipeline_with_agent_tool() -> BaseAgent:
    """Two sub-agents with different tools, and an AgentTool: the second agent calls the
    first's tool, which its own model was never given; the AgentTool's inner agent calls
    its own tool."""
    helper = LlmAgent(
        name="helper",
        description="Finds the time.",
        model=ScriptedLlm.from_responses(
            [{"tool_calls": [call("current_time")]}, {"text": "It is 14:00."}]
        ),
        tools=[current_time],
    )
    heating = LlmAgent(
        name="heating",
        model=ScriptedLlm.from_responses(
            [{"tool_calls": [call("set_temperature", room="hall", degrees=19)]}, {"text": "Set."}]
        ),
        tools=[set_temperature],
    )
    booking = LlmAgent(
        name="booking",
        model=ScriptedLlm.from_responses(
            [
                {"tool_calls": [call("set_temperature", room="hall", degrees=20)]},
                {"tool_calls": [call("helper", request="What time is it?")]},
                {"text": "Booked."},
            ]
        ),
        tools=[BookTable(), AgentTool(helper)],
    )
    return SequentialAgent(name="house", sub_agents=[heating, booking])
