"""An agent whose case `wait` never ends on its own: its tool says it started (a marker
file, named by $STOPPABLE_MARKER) and then waits to be stopped. "stoppable-user" is the
simulated user of a scenario case: it ends the conversation at once."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from google.adk.agents import LlmAgent

from tracegrade.testing import ScriptedLlm, ScriptedUser


async def wait_for_stop() -> dict[str, Any]:
    """Wait until the run is stopped."""
    Path(os.environ["STOPPABLE_MARKER"]).write_text("started")
    await asyncio.sleep(600)
    return {"waited": True}


def _answer(text: str) -> list[dict[str, Any]]:
    return [{"text": text}]


root_agent = LlmAgent(
    name="stoppable",
    model=ScriptedLlm.by_user_text(
        {
            "Quick one": _answer("Done."),
            "Wait for it": [
                {"tool_calls": [{"name": "wait_for_stop", "args": {}}]},
                {"text": "Waited."},
            ],
            "Another quick one": _answer("Done again."),
        }
    ),
    tools=[wait_for_stop],
)

ScriptedUser.from_replies({}).register("stoppable-user")
