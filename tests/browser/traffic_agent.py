"""Production-like traffic for the traces, monitor and turn pages: real google-adk agents
(scripted models) run in their own process, configured as an OTel app is, by `OTEL_*`
variables, and captured into a DuckDB file by tracegrade's exporter with content on.

    python -m tests.browser.traffic_agent DB VERSION

VERSION (1.0 or 1.1) picks the service.version the process reports and the turns it runs:
1.0 answers an order question, fails a refund (its tool raises) and a help question; 1.1
answers with an unsupported claim and calls a tool without its required argument.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.runners import InMemoryRunner
from google.genai import types

from tracegrade.capture import configure
from tracegrade.testing.scripted_llm import ScriptedLlm

USAGE = {"input": 120, "output": 30}
SHOP_TURNS: dict[str, dict[str, list[dict[str, Any]]]] = {
    "1.0": {
        "Where is order 17?": [
            {"tool_calls": [{"name": "lookup_order", "args": {"order_id": 17}}], "usage": USAGE},
            {"text": "Order 17 ships tomorrow.", "usage": USAGE},
        ],
        "Refund order 99 please": [
            {"tool_calls": [{"name": "refund", "args": {"order_id": 99}}], "usage": USAGE},
        ],
    },
    "1.1": {
        "Where is order 18?": [
            {"tool_calls": [{"name": "lookup_order", "args": {"order_id": 18}}], "usage": USAGE},
            {"text": "Order 18 arrived yesterday. You also get a 20% discount.",
             "usage": {"input": 900, "output": 300}},
        ],
        "Where is my latest order?": [
            {"tool_calls": [{"name": "lookup_order", "args": {"order": "latest"}}], "usage": USAGE},
            {"text": "I could not find that order.", "usage": USAGE},
        ],
    },
}  # fmt: skip
HELP_TURNS = {"How do I reset my password?": [{"text": "Use the reset link.", "usage": USAGE}]}


def lookup_order(order_id: int) -> dict[str, Any]:
    """Where an order is."""
    return {"order_id": order_id, "status": "shipped" if order_id % 2 else "delivered"}


def refund(order_id: int) -> dict[str, Any]:
    """Refund a paid order."""
    raise ValueError(f"order {order_id} was never paid")


def agents(version: str) -> list[tuple[LlmAgent, list[str]]]:
    shop = LlmAgent(
        name="shop",
        model=ScriptedLlm.by_user_text(SHOP_TURNS[version], model="shop-model"),
        instruction="You answer questions about orders. Use the tools.",
        tools=[lookup_order, refund],
    )
    help_desk = LlmAgent(
        name="help_desk",
        model=ScriptedLlm.by_user_text(HELP_TURNS, model="help-model"),
        instruction="You answer account questions.",
    )
    found = [(shop, list(SHOP_TURNS[version]))]
    return found + ([(help_desk, list(HELP_TURNS))] if version == "1.0" else [])


async def _run(agent: LlmAgent, texts: list[str]) -> None:
    runner = InMemoryRunner(agent=agent, app_name="shop_app")
    for number, text in enumerate(texts):
        session = await runner.session_service.create_session(app_name="shop_app", user_id="u")
        message = types.Content(role="user", parts=[types.Part(text=text)])
        try:
            async for _ in runner.run_async(
                user_id="u", session_id=session.id, new_message=message
            ):
                pass
        except ValueError:
            pass  # the refund tool raises on purpose: the turn is an error trace
        del number


def main(db: str, version: str) -> None:
    os.environ["OTEL_RESOURCE_ATTRIBUTES"] = f"service.name=shop_app,service.version={version}"
    capture = configure(db, capture_content=True)
    try:
        for agent, texts in agents(version):
            asyncio.run(_run(agent, texts))
    finally:
        capture.shutdown()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
