"""The home-automation example, loaded with its offline model, and ways to run it."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import duckdb
import pytest

from tracegrade.capture import BlockingSpanProcessor
from tracegrade.harness import RunOptions, RunResult, run_eval
from tracegrade.testing import ScriptedLlm

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "home_automation"
EVALSET = EXAMPLE / "home.evalset.json"
CONFIG = EXAMPLE / "test_config.json"
AGENT = str(EXAMPLE)

CASES = [case["eval_id"] for case in json.loads(EVALSET.read_text())["eval_cases"]]
FAILS_ON_PURPOSE = "bedside_lamp_off"
SCENARIO = "bedtime_scenario"  # played by ADK's user simulator
SENDS_WRONG_TYPE = "device_3_by_number"  # the model sends device_id=3, an int, then retries


def offline_agent_module(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The example's agent module with its scripted model and judge, even where a Gemini key
    is set."""
    monkeypatch.setenv("HOME_AGENT_MODEL", "scripted")
    monkeypatch.setenv("HOME_JUDGE_MODEL", "scripted")
    monkeypatch.setenv("HOME_USER_MODEL", "scripted")
    monkeypatch.syspath_prepend(str(EXAMPLE.parent))
    module = importlib.import_module("home_automation.agent")
    if not isinstance(module.root_agent.model, ScriptedLlm):
        module = importlib.reload(module)  # first imported under a real key: choose again
    return module


def run_example(captured: BlockingSpanProcessor, **options: Any) -> RunResult:
    """As `tracegrade run` runs it: with test_config.json (its user simulator, too)."""
    defaults = {
        "eval_sets": [str(EVALSET)],
        "agent": AGENT,
        "criteria": json.loads(CONFIG.read_text()),
    }
    result = run_eval(RunOptions(**(defaults | options)))
    assert captured.force_flush()
    return result


def trajectories(
    connection: duckdb.DuckDBPyConnection, run_id: str
) -> dict[tuple[str, int, int], list[dict[str, Any]]]:
    """Per (case, repeat, turn): the calls made, with their arguments and results."""
    rows = connection.execute(
        """
        SELECT t.case_id, t.repeat, t.turn_index,
               list({'name': c.name, 'args': c.args, 'result': c.result} ORDER BY c.seq)
                   FILTER (c.seq IS NOT NULL)
        FROM turns t LEFT JOIN tool_calls c USING (turn_id)
        WHERE t.run_id = ?
        GROUP BY ALL
        """,
        [run_id],
    ).fetchall()
    return {
        (case, repeat, turn): [
            {"name": c["name"], "args": json.loads(c["args"]), "result": json.loads(c["result"])}
            for c in calls or []
        ]
        for case, repeat, turn, calls in rows
    }
