"""A small shop agent for harness tests: its cart lives in session state, so any leak
between cases or repeats shows up in the tools' results."""

from __future__ import annotations

from typing import Any

from google.adk.agents import LlmAgent
from google.adk.tools.tool_context import ToolContext

from tracegrade.testing import ScriptedLlm


def add_item(item: str, quantity: int, tool_context: ToolContext) -> dict[str, Any]:
    """Add an item to the cart."""
    cart = dict(tool_context.state.get("cart", {}))
    cart[item] = cart.get(item, 0) + quantity
    tool_context.state["cart"] = cart
    return {"cart": cart}


def show_cart(tool_context: ToolContext) -> dict[str, Any]:
    """Show the cart."""
    return {"cart": tool_context.state.get("cart", {}), "owner": tool_context.state.get("owner")}


def pay(amount: float) -> dict[str, Any]:
    """Pay for the cart."""
    raise RuntimeError(f"payment service down ({amount})")


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args}


SCRIPT: dict[str, list[dict[str, Any]]] = {
    "Add two apples": [
        {
            "tool_calls": [call("add_item", item="apple", quantity=2)],
            "usage": {"input": 50, "output": 5},
        },
        {"text": "Added two apples.", "usage": {"input": 60, "output": 4}},
    ],
    "Add a pear": [
        {
            "tool_calls": [call("add_item", item="pear", quantity=1)],
            "usage": {"input": 70, "output": 5},
        },
        {"text": "Added a pear.", "usage": {"input": 80, "output": 4}},
    ],
    "What is in my cart?": [
        {"tool_calls": [call("show_cart")], "usage": {"input": 90, "output": 3}},
        {"text": "Your cart is ready.", "usage": {"input": 95, "output": 4}},
    ],
    "Pay now": [
        {"tool_calls": [call("pay", amount=3.5)], "usage": {"input": 40, "output": 3}},
    ],
    "Is the model up?": [{"raise": "model backend unavailable"}],
    "Talk to billing": [
        {
            "tool_calls": [call("transfer_to_agent", agent_name="billing")],
            "usage": {"input": 30, "output": 3},
        },
    ],
    "Slow question": [{"text": "done", "delay_s": 5}],
}

billing = LlmAgent(
    name="billing",
    description="Answers billing questions.",
    model=ScriptedLlm.by_user_text(
        # Without any args, as Gemini calls a tool without parameters (ADK: None, not {}).
        {
            "Talk to billing": [
                {"tool_calls": [{"name": "show_cart", "args": None}]},
                {"text": "Billing here."},
            ]
        },
        model="billing-model",
    ),
    tools=[show_cart],
)

root_agent = LlmAgent(
    name="shop",
    description="A shop assistant.",
    model=ScriptedLlm.by_user_text(SCRIPT, model="shop-model"),
    tools=[add_item, show_cart, pay],
    sub_agents=[billing],
)
