"""The tools an agent tree gives its models, read from the agents without running them.

`tracegrade run` records these on the run's span (`tracegrade.tool_definitions`), so calls
can be checked against their schemas even where the spans lack them, and
`tracegrade lint-tools` audits them. Each definition has the shape ADK 2.13 writes into
`gen_ai.tool.definitions`: `{name, description, parameters, type: "function"}`, parameters
in the dialect the tool declared (JSON Schema, or google-genai's `Schema` dumped as ADK
dumps it: upper-case types, snake_case keys).

Toolsets (MCP and other `BaseToolset`s) list their tools only at run time, with a context;
they are left out. ADK adds `transfer_to_agent` while it runs; the spans have it.
"""

from __future__ import annotations

from typing import Any

from google.adk.agents.base_agent import BaseAgent
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.function_tool import FunctionTool

from tracegrade.harness.agents import agent_tree


def agent_tool_definitions(root: BaseAgent) -> dict[str, list[dict[str, Any]]]:
    """Each agent's tool definitions, by agent name (agents without tools left out)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for agent in agent_tree(root):
        definitions = [d for tool in getattr(agent, "tools", None) or [] if (d := _define(tool))]
        if definitions:
            found[agent.name] = definitions
    return found


def _define(tool: Any) -> dict[str, Any] | None:
    if callable(tool) and not isinstance(tool, BaseTool):
        tool = FunctionTool(tool)
    if not isinstance(tool, BaseTool):
        return None  # a toolset: its tools exist only at run time
    declaration = tool._get_declaration()
    if declaration is None:
        return None  # not offered to the model at all
    return {
        "name": declaration.name or tool.name,
        "description": declaration.description,
        "parameters": _parameters(declaration),
        "type": "function",
    }


def _parameters(declaration: Any) -> Any:
    if declaration.parameters_json_schema is not None:
        return declaration.parameters_json_schema
    if declaration.parameters is not None:
        return declaration.parameters.model_dump(mode="json", exclude_none=True)
    return None
