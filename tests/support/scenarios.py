"""Real google-adk agents driven by scripted models: the scenarios of reference/adk-spans.md.

Each scenario builds fresh agents (ADK agents can have one parent, so never share them)
and names the user messages of its turns, in order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from google.adk.agents import LlmAgent, ParallelAgent, SequentialAgent
from google.adk.agents.base_agent import BaseAgent
from google.adk.tools.agent_tool import AgentTool

from tracegrade.testing import ScriptedLlm

USAGE_1 = {"input": 120, "output": 18, "thoughts": 7}
USAGE_2 = {"input": 170, "output": 12, "thoughts": 5, "cached": 64}
USAGE_3 = {"input": 210, "output": 21, "thoughts": 0}


def get_weather(city: str) -> dict[str, Any]:
    """Current weather for a city."""
    return {"city": city, "temp_c": 21.5, "sky": "sunny"}


def get_time(city: str) -> dict[str, Any]:
    """Local time in a city."""
    return {"city": city, "time": "14:00"}


def convert_temperature(celsius: float, to: str) -> dict[str, Any]:
    """Convert a Celsius temperature."""
    return {"value": round(celsius * 9 / 5 + 32, 1) if to == "F" else celsius, "unit": to}


def charge_card(amount: float) -> dict[str, Any]:
    """Charge the customer's card."""
    raise ValueError(f"card declined for amount {amount}")


def lookup_order(order_id: str) -> dict[str, Any]:
    """Look up an order."""
    return {"error": f"order {order_id} not found"}


def repeat_items(count: int, ratio: float) -> dict[str, Any]:
    """Repeat items."""
    return {"count": count, "ratio": ratio}


def search(query: str) -> dict[str, Any]:
    """Search the web."""
    return {"results": [f"result for {query}"]}


def format_text(text: str) -> dict[str, Any]:
    """Format text."""
    return {"formatted": text.upper()}


def get_news(topic: str) -> dict[str, Any]:
    """Latest news on a topic."""
    return {"topic": topic, "headline": "All quiet"}


def get_invoice(invoice_id: str) -> dict[str, Any]:
    """Fetch an invoice."""
    return {"invoice_id": invoice_id, "total": 99.5}


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args}


@dataclass(frozen=True)
class Scenario:
    name: str
    build: Callable[[], BaseAgent]
    turns: tuple[str, ...]
    raises: bool = False  # the turn ends in an exception from run_async


def _weather_agent() -> BaseAgent:
    model = ScriptedLlm.by_user_text(
        {
            "Weather in Paris, in F?": [
                {
                    "tool_calls": [
                        call("get_weather", city="Paris"),
                        call("get_time", city="Paris"),
                    ],
                    "usage": USAGE_1,
                },
                {
                    "tool_calls": [call("convert_temperature", celsius=21.5, to="F")],
                    "usage": USAGE_2,
                },
                {"text": "It is 70.7 F in Paris at 14:00.", "usage": USAGE_3},
            ],
            "And 20 C in F?": [
                {
                    "tool_calls": [call("convert_temperature", celsius=20.0, to="F")],
                    "usage": {"input": 300, "output": 9},
                },
                {"text": "20 C is 68.0 F.", "usage": {"input": 330, "output": 8}},
            ],
        },
        model="gemini-2.5-flash",
    )
    return LlmAgent(
        name="weather_agent",
        description="Answers weather questions.",
        model=model,
        instruction="Answer weather questions with the tools.",
        tools=[get_weather, get_time, convert_temperature],
    )


def _errors_agent() -> BaseAgent:
    model = ScriptedLlm.by_user_text(
        {
            "Where is order 7?": [
                {"tool_calls": [call("lookup_order", order_id="7")], "usage": USAGE_1},
                {"tool_calls": [call("no_such_tool", x=1)], "usage": USAGE_2},
                {"text": "I could not find order 7.", "usage": USAGE_3},
            ],
            "Charge me 9.99": [
                {
                    "tool_calls": [
                        call("lookup_order", order_id="9"),
                        call("charge_card", amount=9.99),
                    ],
                    "usage": USAGE_1,
                },
            ],
        }
    )
    return LlmAgent(name="shop_agent", model=model, tools=[lookup_order, charge_card])


def _numbers_agent() -> BaseAgent:
    model = ScriptedLlm.from_responses(
        [
            {"tool_calls": [call("repeat_items", count=3, ratio=3)], "usage": USAGE_1},
            {"tool_calls": [call("repeat_items", count=3.0, ratio=0.5)], "usage": USAGE_2},
            {"text": "Done twice.", "usage": USAGE_3},
        ]
    )
    return LlmAgent(name="numbers_agent", model=model, tools=[repeat_items])


def _sequential() -> BaseAgent:
    researcher = LlmAgent(
        name="researcher",
        model=ScriptedLlm.by_user_text(
            {
                "Write about tides": [
                    {"tool_calls": [call("search", query="tides")], "usage": USAGE_1},
                    {"text": "Tides follow the moon.", "usage": USAGE_2},
                ]
            }
        ),
        tools=[search],
    )
    writer = LlmAgent(
        name="writer",
        model=ScriptedLlm.by_user_text(
            {
                "Write about tides": [
                    {
                        "tool_calls": [call("format_text", text="Tides follow the moon.")],
                        "usage": USAGE_2,
                    },
                    {"text": "TIDES FOLLOW THE MOON.", "usage": USAGE_3},
                ]
            }
        ),
        tools=[format_text],
    )
    return SequentialAgent(name="pipeline", sub_agents=[researcher, writer])


def _parallel() -> BaseAgent:
    def branch(name: str, tool: Callable[..., Any], args: dict[str, Any], delay: float) -> LlmAgent:
        model = ScriptedLlm.by_user_text(
            {
                "Weather and news": [
                    {
                        "tool_calls": [call(tool.__name__, **args)],
                        "usage": USAGE_1,
                        "delay_s": delay,
                    },
                    {"text": f"{name} done.", "usage": USAGE_2},
                ]
            }
        )
        return LlmAgent(name=name, model=model, tools=[tool])

    return ParallelAgent(
        name="fanout",
        sub_agents=[
            branch("weather_branch", get_weather, {"city": "Oslo"}, 0.2),
            branch("news_branch", get_news, {"topic": "sailing"}, 0.0),
        ],
    )


def _transfer() -> BaseAgent:
    invoice_agent = LlmAgent(
        name="invoice_agent",
        description="Handles invoices.",
        model=ScriptedLlm.by_user_text(
            {
                "Show invoice 42": [
                    {"tool_calls": [call("get_invoice", invoice_id="42")], "usage": USAGE_2},
                    {"text": "Invoice 42 totals 99.5.", "usage": USAGE_3},
                ]
            }
        ),
        tools=[get_invoice],
    )
    return LlmAgent(
        name="router",
        model=ScriptedLlm.by_user_text(
            {
                "Show invoice 42": [
                    {
                        "tool_calls": [call("transfer_to_agent", agent_name="invoice_agent")],
                        "usage": USAGE_1,
                    },
                ]
            }
        ),
        sub_agents=[invoice_agent],
    )


def _agent_tool() -> BaseAgent:
    helper = LlmAgent(
        name="helper_agent",
        description="Researches a question.",
        model=ScriptedLlm.by_user_text(
            {
                "tides": [
                    {"tool_calls": [call("search", query="tides")], "usage": USAGE_1},
                    {"text": "Tides follow the moon.", "usage": USAGE_2},
                ]
            }
        ),
        tools=[search],
    )
    return LlmAgent(
        name="main_agent",
        model=ScriptedLlm.by_user_text(
            {
                "Explain tides": [
                    {"tool_calls": [call("helper_agent", request="tides")], "usage": USAGE_1},
                    {"text": "The moon drives the tides.", "usage": USAGE_3},
                ]
            }
        ),
        tools=[AgentTool(helper)],
    )


def _model_raises() -> BaseAgent:
    model = ScriptedLlm.from_responses(
        [
            {"tool_calls": [call("get_time", city="Rome")], "usage": USAGE_1},
            {"raise": "model backend unavailable"},
        ]
    )
    return LlmAgent(name="flaky_agent", model=model, tools=[get_time])


def _error_response() -> BaseAgent:
    model = ScriptedLlm.from_responses(
        [{"error_code": "SAFETY", "error_message": "blocked", "usage": {"input": 30, "output": 3}}]
    )
    return LlmAgent(name="safe_agent", model=model)


SCENARIOS = {
    s.name: s
    for s in [
        Scenario("parallel_calls", _weather_agent, ("Weather in Paris, in F?",)),
        Scenario("multi_turn", _weather_agent, ("Weather in Paris, in F?", "And 20 C in F?")),
        Scenario("tool_errors", _errors_agent, ("Where is order 7?",)),
        Scenario("tool_raises", _errors_agent, ("Charge me 9.99",), raises=True),
        Scenario("numbers", _numbers_agent, ("Repeat three items",)),
        Scenario("sequential", _sequential, ("Write about tides",)),
        Scenario("parallel_agent", _parallel, ("Weather and news",)),
        Scenario("transfer", _transfer, ("Show invoice 42",)),
        Scenario("agent_tool", _agent_tool, ("Explain tides",)),
        Scenario("model_raises", _model_raises, ("Time in Rome?",), raises=True),
        Scenario("error_response", _error_response, ("Say something unsafe",)),
    ]
}
