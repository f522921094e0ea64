"""A home-automation agent: devices in rooms, lights on and off, thermostats.

Modelled on the home-automation agent google-adk's own samples and tests use. The
home (devices and room temperatures) lives in the session state, seeded from the eval
case's `session_input.state` or from `DEFAULT_HOME`, so every case starts from its own
home and nothing one case does can show up in another.

The model: Gemini (`gemini-2.5-flash`, or `$HOME_AGENT_MODEL`) when `GOOGLE_API_KEY` or
`GOOGLE_GENAI_USE_VERTEXAI` is set; otherwise, or when `HOME_AGENT_MODEL=scripted`, a
scripted model replaying `model_script.json`, so the example runs offline without a key.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.tools.tool_context import ToolContext

from tracegrade.testing import ScriptedLlm

from . import (
    judge,  # noqa: F401  registers "home-judge", the judge test_config.json names
    simulator,  # noqa: F401  registers "home-user", the scenario's simulated user
)

MODEL_SCRIPT = Path(__file__).with_name("model_script.json")
GEMINI_MODEL = "gemini-2.5-flash"
MIN_CELSIUS, MAX_CELSIUS = 18, 30

# Read-only defaults: each session copies them into its own state on first use.
DEFAULT_HOME: dict[str, Any] = {
    "devices": {
        "device_1": {"name": "ceiling light", "status": "ON", "location": "Living Room"},
        "device_2": {"name": "bedside lamp", "status": "OFF", "location": "Bedroom"},
        "device_3": {"name": "extractor fan", "status": "OFF", "location": "Kitchen"},
    },
    "temperatures": {"Living Room": 22, "Bedroom": 20, "Kitchen": 24},
}


def _read(tool_context: ToolContext, key: str) -> dict[str, Any]:
    """A copy of one part of this session's home; change it, then `_write` it back."""
    value = tool_context.state.get(key)
    return copy.deepcopy(value if value is not None else DEFAULT_HOME[key])


def _write(tool_context: ToolContext, key: str, value: dict[str, Any]) -> None:
    # Assigning (not mutating in place) is what records the change in the session.
    tool_context.state[key] = value


def _describe(device_id: str, device: dict[str, Any]) -> dict[str, Any]:
    return {"device_id": device_id, **device}


def get_device_info(device_id: str, tool_context: ToolContext) -> dict[str, Any]:
    """Get a device's name, status ('ON' or 'OFF') and location (its room).

    Args:
        device_id: The device's id, such as 'device_1'.
    """
    device = _read(tool_context, "devices").get(device_id)
    if device is None:
        return {"error": f"no device '{device_id}'"}
    return _describe(device_id, device)


def set_device_info(
    device_id: str, tool_context: ToolContext, status: str = "", location: str = ""
) -> dict[str, Any]:
    """Switch a device on or off, or move it to another room.

    Args:
        device_id: The device's id, such as 'device_1'. Look it up with list_devices
            when the user names the device instead.
        status: 'ON' or 'OFF'; leave empty to keep the status.
        location: The room to move the device to; leave empty to keep it where it is.
    """
    devices = _read(tool_context, "devices")
    if device_id not in devices:
        return {"error": f"no device '{device_id}'"}
    if status and status not in ("ON", "OFF"):
        return {"error": f"status must be 'ON' or 'OFF', not '{status}'"}
    changes = {"status": status, "location": location}
    devices[device_id].update({k: v for k, v in changes.items() if v})  # empty: keep as is
    _write(tool_context, "devices", devices)
    return _describe(device_id, devices[device_id])


def list_devices(tool_context: ToolContext, status: str = "", location: str = "") -> dict[str, Any]:
    """List the devices, filtered by status and/or room when given.

    Args:
        status: Only devices with this status ('ON' or 'OFF'); empty for any.
        location: Only devices in this room; empty for any room.
    """
    devices = _read(tool_context, "devices")
    found = [
        _describe(device_id, device)
        for device_id, device in devices.items()
        if (not status or device["status"] == status)
        and (not location or device["location"] == location)
    ]
    return {"devices": found}


def get_temperature(location: str, tool_context: ToolContext) -> dict[str, Any]:
    """Get a room's current temperature in degrees Celsius.

    Args:
        location: The room, such as 'Living Room', 'Bedroom' or 'Kitchen'.
    """
    celsius = _read(tool_context, "temperatures").get(location)
    if celsius is None:
        return {"error": f"no thermostat in '{location}'"}
    return {"location": location, "celsius": celsius}


def set_temperature(location: str, temperature: float, tool_context: ToolContext) -> dict[str, Any]:
    """Set a room's thermostat, in degrees Celsius, from 18 to 30.

    Args:
        location: The room, such as 'Living Room', 'Bedroom' or 'Kitchen'.
        temperature: The target in degrees Celsius, from 18 to 30.
    """
    temperatures = _read(tool_context, "temperatures")
    if location not in temperatures:
        return {"error": f"no thermostat in '{location}'"}
    if not MIN_CELSIUS <= temperature <= MAX_CELSIUS:
        return {"error": f"{temperature} is outside {MIN_CELSIUS}-{MAX_CELSIUS} degrees Celsius"}
    temperatures[location] = temperature
    _write(tool_context, "temperatures", temperatures)
    return {"location": location, "celsius": temperature}


INSTRUCTION = f"""You are a home-automation assistant. You control the devices in the user's
home and its thermostats, using your tools.

- When the user names a device by what it is or where it is ("the bedside lamp"), find its
  id with list_devices first, filtering by room and/or status. Never guess a device id.
- Temperatures are in degrees Celsius; thermostats accept {MIN_CELSIUS} to {MAX_CELSIUS}.
  Refuse anything outside that range without calling a tool.
- To compare rooms, ask for every room's temperature at once.
- Answer in one or two short sentences, naming the devices and rooms you used."""


def choose_model() -> BaseLlm | str:
    """Gemini when credentials are configured, else the scripted model (see the module doc)."""
    wanted = os.environ.get("HOME_AGENT_MODEL", "")
    has_gemini = bool(os.environ.get("GOOGLE_API_KEY")) or os.environ.get(
        "GOOGLE_GENAI_USE_VERTEXAI", ""
    ).lower() in ("1", "true")
    if wanted == "scripted" or not has_gemini:
        return ScriptedLlm.from_file(MODEL_SCRIPT, model="home-scripted")
    return wanted or GEMINI_MODEL


root_agent = LlmAgent(
    name="home_automation",
    description="Controls the devices and thermostats in a home.",
    model=choose_model(),
    instruction=INSTRUCTION,
    tools=[get_device_info, set_device_info, list_devices, get_temperature, set_temperature],
)
