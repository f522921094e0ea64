"""The agents behind report_runs.otlp.jsonl: the harness's shop agent, twice.

`base_agent` answers like tests/harness/shop_agent, plus a pear-price question whose
answer changes between repeats (right, then wrong: a flaky case). `next_agent` is the
"new version" a diff compares against it: it checks the cart before transferring to
billing (a changed trajectory, and a regression), always prices the pear right (a fix),
and spends more tokens adding apples.

The root model is named gemini-2.5-flash so its calls are priced; billing's model is
not in any price table, so turns that reach billing have an unknown cost.
"""

from __future__ import annotations

from typing import Any

from google.adk.agents import LlmAgent
from google.adk.models.llm_request import LlmRequest
from pydantic import PrivateAttr

from tests.harness.shop_agent.agent import SCRIPT, add_item, call, pay, show_cart
from tracegrade.testing import ScriptedLlm
from tracegrade.testing.script import ScriptedResponse
from tracegrade.testing.scripted_llm import _position_in_turn

PRICE_QUESTION = "How much is a pear?"


def price(item: str) -> dict[str, Any]:
    """The price of one item."""
    return {"item": item, "price": {"pear": 0.5, "apple": 0.4}.get(item)}


def _price_answer(item: str, text: str) -> list[dict[str, Any]]:
    return [
        {"tool_calls": [call("price", item=item)], "usage": {"input": 40, "output": 4}},
        {"text": text, "usage": {"input": 55, "output": 6}},
    ]


RIGHT_PRICE = _price_answer("pear", "A pear costs 0.50.")
WRONG_PRICE = _price_answer("apple", "An apple costs 0.40.")


class AlternatingLlm(ScriptedLlm):
    """`by_user_text`, except that the n-th time `PRICE_QUESTION` is asked it gets the
    n-th of `variants` (cycling): its case passes on one repeat and fails on the next.
    Cases replay one at a time (parallel=1), so the order is fixed."""

    variants: list[str]
    _asked: int = PrivateAttr(default=0)

    def _next(self, request: LlmRequest) -> ScriptedResponse:
        user_text, model_turns = _position_in_turn(request.contents)
        if user_text != PRICE_QUESTION:
            return super()._next(request)
        if model_turns == 0:
            self._asked += 1
        variant = self.variants[(self._asked - 1) % len(self.variants)]
        assert self.script.by_user_text is not None
        return self.script.by_user_text[variant][model_turns]


def _billing() -> LlmAgent:
    return LlmAgent(
        name="billing",
        description="Answers billing questions.",
        model=ScriptedLlm.by_user_text(
            {"Talk to billing": [{"tool_calls": [call("show_cart")]}, {"text": "Billing here."}]},
            model="billing-model",
        ),
        tools=[show_cart],
    )


def _shop(script: dict[str, list[dict[str, Any]]], variants: list[str]) -> LlmAgent:
    return LlmAgent(
        name="shop",
        description="A shop assistant.",
        model=AlternatingLlm.model_validate(
            {
                "model": "gemini-2.5-flash",
                "script": {"by_user_text": script},
                "variants": variants,
            }
        ),
        tools=[add_item, show_cart, pay, price],
        sub_agents=[_billing()],
    )


_PRICES = {"right": RIGHT_PRICE, "wrong": WRONG_PRICE}

base_agent = _shop({**SCRIPT, **_PRICES}, ["right", "wrong"])

next_agent = _shop(
    {
        **SCRIPT,
        **_PRICES,
        "Add two apples": [
            {
                "tool_calls": [call("add_item", item="apple", quantity=2)],
                "usage": {"input": 150, "output": 5},
            },
            {"text": "Added two apples.", "usage": {"input": 160, "output": 4}},
        ],
        "Talk to billing": [
            {"tool_calls": [call("show_cart")], "usage": {"input": 30, "output": 3}},
            {
                "tool_calls": [call("transfer_to_agent", agent_name="billing")],
                "usage": {"input": 45, "output": 3},
            },
        ],
    },
    ["right"],
)
