"""A thermostat agent with a scripted model: the same answers under `tracegrade run`, ADK's
own `adk eval` and a plain ADK runner, so their scores can be compared.

When $EVALSET_AGENT_DB is set the process's spans go into that DuckDB file through
tracegrade's `configure()`; when $EVALSET_AGENT_OTLP is, over OTLP/HTTP to that endpoint
(`configure_otlp`), as a user's agent exports them under any harness.
"""

from __future__ import annotations

import os
from typing import Any

from google.adk.agents import LlmAgent

from tracegrade.testing import ScriptedLlm

if os.environ.get("EVALSET_AGENT_DB"):
    from tracegrade.capture import configure

    configure(os.environ["EVALSET_AGENT_DB"], capture_content=True)
elif os.environ.get("EVALSET_AGENT_OTLP"):
    from tracegrade.capture import configure_otlp

    configure_otlp(os.environ["EVALSET_AGENT_OTLP"], capture_content=True)


def get_temperature(room: str) -> dict[str, Any]:
    """A room's temperature in Celsius."""
    return {"room": room, "celsius": 20}


def set_temperature(room: str, celsius: int) -> dict[str, Any]:
    """Set a room's thermostat."""
    return {"room": room, "celsius": celsius, "status": "set"}


def _call(name: str, **args: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "args": args}]}


SCRIPT = {
    "How warm is the bedroom?": [
        _call("get_temperature", room="bedroom"),
        {"text": "The bedroom is at 20 degrees."},
    ],
    "Make it 22 degrees.": [
        _call("set_temperature", room="bedroom", celsius=22),
        {"text": "Done: the bedroom is set to 22 degrees."},
    ],
    # The eval set expects the kitchen to be read first; the model goes straight to setting.
    "Warm the kitchen up.": [
        _call("set_temperature", room="kitchen", celsius=24),
        {"text": "The kitchen is set to 24 degrees."},
    ],
    "Hello": [{"text": "Hi! I can read and set room temperatures."}],
    "What can you do?": [{"text": "I read and set the thermostats."}],
}

root_agent = LlmAgent(
    name="thermostat",
    model=ScriptedLlm.by_user_text(SCRIPT, model="thermostat-scripted"),
    instruction="You read and set room temperatures.",
    tools=[get_temperature, set_temperature],
)
