"""Conversation scenarios: ADK's user simulator (on a scripted model) talks to the real
shop agent; every simulated turn is an eval turn, the simulator's calls are apart."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.support.paths import DATA
from tests.support.tiers import costly
from tests.support.views import dict_rows
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.errors import ConfigError, EvalSetError
from tracegrade.harness import RunOptions, RunResult, plan_run, run_eval
from tracegrade.store import SpanWriter
from tracegrade.testing import ScriptedUser

SCENARIOS = DATA / "evalsets" / "scenarios" / "shop_scenarios.evalset.json"
AGENT = "tests.harness.shop_agent.agent:root_agent"
GOAL_REPLIES = {"Added two apples": "What is in my cart?", "cart is ready": "</finished>"}


def _user(replies: dict[str, Any] | None = None, **kwargs: Any) -> tuple[ScriptedUser, str]:
    user = (
        ScriptedUser.from_replies(GOAL_REPLIES if replies is None else replies, **kwargs)
        if "answer" not in kwargs
        else ScriptedUser(**kwargs)
    )
    return user, user.register(f"test-user-{uuid.uuid4().hex[:8]}")


def _run(captured: BlockingSpanProcessor, simulator: dict[str, Any], **options: Any) -> RunResult:
    defaults: dict[str, Any] = {
        "eval_sets": [f"{SCENARIOS}:fill_the_cart"],
        "agent": AGENT,
        "criteria": {"user_simulator_config": simulator},
    }
    result = run_eval(RunOptions(**(defaults | options)))
    assert captured.force_flush()
    return result


def _turns(connection: duckdb.DuckDBPyConnection, run_id: str) -> list[dict[str, Any]]:
    return dict_rows(
        connection,
        "SELECT repeat, turn_index, user_text, final_text, total_tokens, is_error, error_message "
        "FROM turns WHERE run_id = ? ORDER BY repeat, turn_index",
        run_id,
    )


def _asks(connection: duckdb.DuckDBPyConnection, run_id: str) -> list[dict[str, Any]]:
    return dict_rows(
        connection,
        "SELECT repeat, turn_index, status, user_text, llm_calls, input_tokens, output_tokens "
        "FROM simulator_calls WHERE run_id = ? ORDER BY repeat, turn_index",
        run_id,
    )


@costly
def test_a_scenario_plays_until_the_simulator_says_the_goal_is_reached(
    captured: BlockingSpanProcessor, writer: SpanWriter
) -> None:
    user, name = _user(usage={"input": 900, "output": 7})
    result = _run(captured, {"model": name})

    turns = _turns(writer.connection, result.run_id)
    assert [(t["turn_index"], t["user_text"], t["final_text"]) for t in turns] == [
        (0, "Add two apples", "Added two apples."),
        (1, "What is in my cart?", "Your cart is ready."),
    ]
    # Only the agent's model calls (shop_agent's usage): the simulator's 900 + 7 are apart.
    assert [t["total_tokens"] for t in turns] == [50 + 5 + 60 + 4, 90 + 3 + 95 + 4]
    assert _asks(writer.connection, result.run_id) == [
        {"repeat": 0, "turn_index": 0, "status": "message", "user_text": "Add two apples",
         "llm_calls": 0, "input_tokens": None, "output_tokens": None},
        {"repeat": 0, "turn_index": 1, "status": "message", "user_text": "What is in my cart?",
         "llm_calls": 1, "input_tokens": 900, "output_tokens": 7},
        {"repeat": 0, "turn_index": 2, "status": "stop_signal", "user_text": None,
         "llm_calls": 1, "input_tokens": 900, "output_tokens": 7},
    ]  # fmt: skip
    assert [o.ending for o in result.outcomes] == ["stop_signal"]
    assert result.errors == []
    # The simulator saw the conversation as ADK shows it: author and text.
    assert "shop: Added two apples." in user.calls[0].prompt
    assert "user: Add two apples" in user.calls[0].prompt


def test_the_turn_limit_ends_a_conversation_that_never_stops(
    captured: BlockingSpanProcessor, writer: SpanWriter
) -> None:
    _, name = _user({}, otherwise="Add a pear")
    result = _run(captured, {"model": name, "max_allowed_invocations": 3})

    turns = _turns(writer.connection, result.run_id)
    assert [t["user_text"] for t in turns] == ["Add two apples", "Add a pear", "Add a pear"]
    asks = _asks(writer.connection, result.run_id)
    assert [(a["status"], a["llm_calls"]) for a in asks] == [
        ("message", 0), ("message", 1), ("message", 1), ("turn_limit", 0)
    ]  # fmt: skip
    assert [o.ending for o in result.outcomes] == ["turn_limit"]
    assert result.errors == []


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (None, "RuntimeError: Failed to generate a user message: LLM returned empty response"),
        ("raise", "ConnectionError: 429 quota"),
    ],
)
def test_a_failing_simulator_makes_the_case_an_error(
    captured: BlockingSpanProcessor, writer: SpanWriter, answer: str | None, message: str
) -> None:
    def reply(prompt: str, seed: int | None) -> str | None:
        if answer == "raise":
            raise ConnectionError("429 quota")
        return answer

    _, name = _user(answer=reply)
    result = _run(captured, {"model": name})

    turns = _turns(writer.connection, result.run_id)
    assert [(t["turn_index"], t["is_error"]) for t in turns] == [(0, False), (1, True)]
    assert turns[1]["user_text"] is None
    assert turns[1]["error_message"] == f"user simulator failed: {message}"
    assert [o.ending for o in result.outcomes] == ["error"]
    assert [o.error for o in result.errors] == [f"user simulator failed: {message}"]
    assert _asks(writer.connection, result.run_id)[-1]["status"] == "error"


@costly
def test_repeats_are_independent_conversations_and_play_again_the_same(
    captured: BlockingSpanProcessor, writer: SpanWriter
) -> None:
    replies = {"Added two apples": ["What is in my cart?", "Add a pear"], "": "</finished>"}
    _, name = _user(replies)
    first = _run(captured, {"model": name}, repeats=3, parallel=3)
    again = _run(captured, {"model": name}, repeats=3)

    def conversations(run_id: str) -> dict[int, list[str]]:
        found: dict[int, list[str]] = {}
        for t in _turns(writer.connection, run_id):
            found.setdefault(t["repeat"], []).append(t["user_text"])
        return found

    assert conversations(first.run_id) == {
        0: ["Add two apples", "What is in my cart?"],
        1: ["Add two apples", "Add a pear"],
        2: ["Add two apples", "What is in my cart?"],
    }
    assert conversations(again.run_id) == conversations(first.run_id)
    sessions = dict_rows(
        writer.connection,
        "SELECT count(DISTINCT session_id) AS n FROM turns WHERE run_id = ?",
        first.run_id,
    )
    assert sessions == [{"n": 3}]


def test_the_configured_seed_is_the_first_repeat_s(
    captured: BlockingSpanProcessor, writer: SpanWriter
) -> None:
    user, name = _user()
    _run(captured, {"model": name, "model_configuration": {"seed": 40}}, repeats=2)
    assert {c.seed for c in user.calls} == {40, 41}


def test_a_persona_reaches_the_simulator(captured: BlockingSpanProcessor, tmp_path: Path) -> None:
    user, name = _user()
    data = json.loads(SCENARIOS.read_text())
    data["eval_cases"][0]["conversation_scenario"]["user_persona"] = "NOVICE"
    path = tmp_path / "persona.evalset.json"
    path.write_text(json.dumps(data))
    _run(captured, {"model": name}, eval_sets=[f"{path}:fill_the_cart"])
    assert "Novice" in user.calls[0].prompt


def test_static_and_scenario_cases_run_together(
    captured: BlockingSpanProcessor, writer: SpanWriter
) -> None:
    _, name = _user()
    result = _run(captured, {"model": name}, eval_sets=[str(SCENARIOS)])
    rows = dict_rows(
        writer.connection,
        "SELECT case_id, count(*) AS turns FROM turns WHERE run_id = ? GROUP BY 1 ORDER BY 1",
        result.run_id,
    )
    assert rows == [
        {"case_id": "fill_the_cart", "turns": 2},
        {"case_id": "static_pear", "turns": 1},
    ]
    assert result.not_replayable == []


BAD_CONFIGS = [
    ({"max_allowed_invocations": "many"}, "llm_backed.max_allowed_invocations"),
    ({"type": "llm_audio"}, "type: 'llm_audio' is not supported"),
    ({"model": "no-such-model-xyz"}, "model: Model no-such-model-xyz not found"),
]


@pytest.mark.parametrize(("simulator", "error"), BAD_CONFIGS)
def test_a_bad_simulator_config_fails_before_anything_runs(
    simulator: dict[str, Any], error: str
) -> None:
    options = RunOptions(
        eval_sets=[str(SCENARIOS)], agent=AGENT, criteria={"user_simulator_config": simulator}
    )
    with pytest.raises(ConfigError, match=re.escape(f"user_simulator_config.{error}")):
        plan_run(options)


def test_an_unknown_persona_names_the_case(tmp_path: Path) -> None:
    data = json.loads(SCENARIOS.read_text())
    data["eval_cases"][0]["conversation_scenario"]["user_persona"] = "PIRATE"
    path = tmp_path / "persona.evalset.json"
    path.write_text(json.dumps(data))
    with pytest.raises(
        EvalSetError, match=r"case 'fill_the_cart': conversation_scenario\.user_persona"
    ):
        plan_run(RunOptions(eval_sets=[str(path)], agent=AGENT))
