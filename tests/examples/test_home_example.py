"""The home-automation example runs offline, end to end, and gives its documented verdicts."""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from tests.examples.home_example import (
    CASES,
    CONFIG,
    EVALSET,
    FAILS_ON_PURPOSE,
    SCENARIO,
    SENDS_WRONG_TYPE,
    offline_agent_module,
    run_example,
    trajectories,
)
from tests.support.adk_run import ROUTER
from tests.support.new_database import new_database
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor, DuckDBSpanExporter
from tracegrade.exit_codes import ExitCode
from tracegrade.harness import RunResult
from tracegrade.scoring import ScoringResult, Selection, load_scoring_config, score
from tracegrade.store import SpanWriter
from tracegrade.testing import ScriptedLlm, ScriptedUser, load_script


@pytest.fixture(autouse=True)
def agent_module(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    return offline_agent_module(monkeypatch)


@dataclass(frozen=True)
class Example:
    """The example run as `tracegrade run` runs it, scored with the config beside its eval set,
    in `writer`'s database."""

    result: RunResult
    scored: ScoringResult
    writer: SpanWriter


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Example]:
    """One run for the tests that only read it (a run replays every case, then the judge)."""
    db = new_database(tmp_path_factory.mktemp("home") / "home.duckdb")
    writer = SpanWriter.open(db)
    processor = BlockingSpanProcessor(DuckDBSpanExporter(writer=writer))
    with pytest.MonkeyPatch.context() as monkeypatch:
        offline_agent_module(monkeypatch)
        ROUTER.target = processor
        try:
            result = run_example(processor)
        finally:
            ROUTER.target = None
    loaded = load_scoring_config(None, [str(EVALSET)])
    scored = score(writer.connection, Selection(run_id=result.run_id), loaded.config, loaded.specs)
    yield Example(result, scored, writer)
    processor.shutdown()
    writer.close()


@costly
def test_exactly_the_intended_case_fails_and_nothing_errors(example: Example) -> None:
    result, scored = example.result, example.scored
    assert load_scoring_config(None, [str(EVALSET)]).source == CONFIG  # as adk eval finds it

    assert [o.case_id for o in result.errors] == []
    assert scored.error_rate == 0
    verdicts = {c.case_id: (c.verdict, c.failed_metrics) for c in scored.cases}
    expected: dict[str, tuple[str, list[str]]] = {case: ("passed", []) for case in CASES}
    expected[FAILS_ON_PURPOSE] = ("failed", ["hallucinations_v1", "tool_trajectory_avg_score"])
    expected[SENDS_WRONG_TYPE] = ("failed", ["tool_call_validity"])
    assert verdicts == expected
    assert scored.failed_run_metrics == []
    assert scored.exit_code == ExitCode.GATE_FAILED


def test_the_failure_shows_the_wrong_device(example: Example) -> None:
    result, scored, writer = example.result, example.scored, example.writer
    (detail,) = writer.connection.execute(
        "SELECT detail FROM scores WHERE scoring_id = ? AND level = 'turn' AND case_id = ? "
        "AND metric = 'tool_trajectory_avg_score'",
        [scored.scoring_id, FAILS_ON_PURPOSE],
    ).fetchone() or (None,)
    assert json.loads(detail) == {
        "match_type": "IN_ORDER",
        "expected": [
            {"name": "list_devices", "args": {"location": "Bedroom"}},
            {"name": "set_device_info", "args": {"device_id": "device_2", "status": "OFF"}},
        ],
        "actual": [{"name": "set_device_info", "args": {"device_id": "device_1", "status": "OFF"}}],
        "reason": None,
    }
    # What the agent actually switched off: the living-room ceiling light.
    (call,) = trajectories(writer.connection, result.run_id)[(FAILS_ON_PURPOSE, 0, 0)]
    assert call["result"] == {
        "device_id": "device_1",
        "name": "ceiling light",
        "status": "OFF",
        "location": "Living Room",
    }


def test_the_judge_finds_the_claim_the_tools_contradict(example: Example) -> None:
    """The example's judged metric runs offline, on the scripted judge: only the bedside
    lamp's answer is contradicted by what its tool call did."""
    scored, writer = example.scored, example.writer
    rows = writer.connection.execute(
        "SELECT case_id, score, detail FROM scores WHERE scoring_id = ? AND level = 'turn' "
        "AND metric = 'hallucinations_v1'",
        [scored.scoring_id],
    ).fetchall()
    assert len(rows) == 15  # 13 replayed turns and the scenario's 2
    scores = {case: value for case, value, _ in rows}
    assert [case for case, value in scores.items() if value != 1.0] == [FAILS_ON_PURPOSE]
    (detail,) = [json.loads(d) for case, _, d in rows if case == FAILS_ON_PURPOSE]
    assert detail["sentences"][0]["label"] == "contradictory"
    assert "ceiling light" in detail["sentences"][0]["rationale"]


def test_the_judge_is_gemini_when_a_key_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    from google.adk.models.google_llm import Gemini
    from google.adk.models.registry import LLMRegistry

    from tracegrade.testing import ScriptedJudge

    judge = LLMRegistry.resolve("home-judge")(model="home-judge")
    assert isinstance(judge.judge(), ScriptedJudge)  # type: ignore[attr-defined]
    monkeypatch.setenv("HOME_JUDGE_MODEL", "")
    monkeypatch.setenv("GOOGLE_API_KEY", "a-key")
    assert isinstance(judge.judge(), Gemini)  # type: ignore[attr-defined]


@costly
def test_the_scenario_is_played_by_the_simulated_user_until_its_goal(
    captured: BlockingSpanProcessor, writer: SpanWriter
) -> None:
    result = run_example(captured, eval_sets=[f"{EVALSET}:{SCENARIO}"])
    assert [o.ending for o in result.outcomes] == ["stop_signal"]
    turns = trajectories(writer.connection, result.run_id)
    assert [c["name"] for c in turns[(SCENARIO, 0, 0)]] == ["list_devices", "set_device_info"]
    assert [c["name"] for c in turns[(SCENARIO, 0, 1)]] == ["get_temperature"]
    asks = writer.connection.execute(
        "SELECT status, user_text, model FROM simulator_calls WHERE run_id = ? ORDER BY turn_index",
        [result.run_id],
    ).fetchall()
    assert asks == [
        ("message", "Switch on the bedside lamp, please.", "home-user"),
        ("message", "Thanks. How warm is the Bedroom?", "home-user-scripted"),
        ("stop_signal", None, "home-user-scripted"),
    ]


def test_the_simulated_user_is_gemini_when_a_key_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    from google.adk.models.google_llm import Gemini
    from google.adk.models.registry import LLMRegistry

    user = LLMRegistry.resolve("home-user")(model="home-user")
    assert isinstance(user.user(), ScriptedUser)  # type: ignore[attr-defined]
    monkeypatch.setenv("HOME_USER_MODEL", "")
    monkeypatch.setenv("GOOGLE_API_KEY", "a-key")
    assert isinstance(user.user(), Gemini)  # type: ignore[attr-defined]


def test_the_wrong_typed_argument_fails_validity_with_its_reason(example: Example) -> None:
    result, scored, writer = example.result, example.scored, example.writer
    (score_value, detail) = writer.connection.execute(
        "SELECT score, detail FROM scores WHERE scoring_id = ? AND level = 'turn' AND case_id = ? "
        "AND metric = 'tool_call_validity'",
        [scored.scoring_id, SENDS_WRONG_TYPE],
    ).fetchone() or (None, None)
    assert score_value == 0.5
    wrong_type = {
        "argument": "device_id",
        "kind": "wrong_type",
        "message": '3 is not of type "string"',
    }
    assert json.loads(detail) == {
        "calls": 2,
        "checked": 2,
        "invalid": [{"seq": 1, "name": "get_device_info", "errors": [wrong_type]}],
        "reason": None,
    }
    # The tool's own answer to the bad call is kept as its error message.
    (message,) = writer.connection.execute(
        "SELECT c.error_message FROM tool_calls c JOIN turns t USING (turn_id) "
        "WHERE t.run_id = ? AND t.case_id = ? AND c.seq = 1",
        [result.run_id, SENDS_WRONG_TYPE],
    ).fetchone() or (None,)
    assert message == "no device '3'"


@costly
def test_no_case_leaks_state_in_any_order_or_concurrency(
    captured: BlockingSpanProcessor, writer: SpanWriter, tmp_path: Path
) -> None:
    reversed_set = tmp_path / "home_reversed.evalset.json"
    data = json.loads(EVALSET.read_text())
    data["eval_cases"].reverse()
    reversed_set.write_text(json.dumps(data))

    baseline = trajectories(writer.connection, run_example(captured).run_id)
    concurrent = trajectories(writer.connection, run_example(captured, parallel=4).run_id)
    backwards = run_example(captured, eval_sets=[str(reversed_set)], parallel=4)
    assert concurrent == baseline
    assert trajectories(writer.connection, backwards.run_id) == baseline

    # move_the_fan moves device_3 into the Bedroom; its next turn sees that, nobody else does.
    (bedroom,) = baseline[("move_the_fan", 0, 1)]
    assert [d["device_id"] for d in bedroom["result"]["devices"]] == ["device_2", "device_3"]
    (kitchen,) = baseline[("kitchen_devices", 0, 0)]
    assert [d["device_id"] for d in kitchen["result"]["devices"]] == ["device_3"]
    # A case's session_input.state replaces the default home.
    porch = baseline[("porch_light_from_state", 0, 0)]
    assert porch[0]["result"] == {
        "devices": [
            {"device_id": "device_7", "name": "porch light", "status": "OFF", "location": "Porch"}
        ]
    }


def test_numbers_match_by_value_as_in_adk(example: Example) -> None:
    result, writer = example.result, example.writer
    sent = writer.connection.execute(
        "SELECT c.args FROM tool_calls c JOIN turns t USING (turn_id) "
        "WHERE t.run_id = ? AND t.case_id = 'bedroom_to_21'",
        [result.run_id],
    ).fetchall()
    # The model sent a float, the eval set expects an int: 21.0 == 21, so the case passes.
    assert [json.loads(args) for (args,) in sent] == [{"location": "Bedroom", "temperature": 21.0}]
    assert '"temperature": 21.0' in sent[0][0]
    expected = json.loads(EVALSET.read_text())["eval_cases"]
    case = next(c for c in expected if c["eval_id"] == "bedroom_to_21")
    assert case["conversation"][0]["intermediate_data"]["tool_uses"][0]["args"]["temperature"] == 21


def test_the_script_answers_exactly_the_eval_sets_messages() -> None:
    """The replayed turns' messages, and those the scripted user writes in the scenario."""
    replies = importlib.import_module("home_automation.simulator").REPLIES
    script = load_script(EVALSET.with_name("model_script.json"))
    data = json.loads(EVALSET.read_text())
    messages = {
        turn["user_content"]["parts"][0]["text"]
        for case in data["eval_cases"]
        for turn in case.get("conversation") or []
    }
    scenario = next(
        c["conversation_scenario"] for c in data["eval_cases"] if c["eval_id"] == SCENARIO
    )
    simulated = {scenario["starting_prompt"]} | set(replies.values()) - {"</finished>"}
    assert set(script.by_user_text or {}) == messages | simulated


@pytest.mark.parametrize(
    ("environment", "model"),
    [
        ({}, "scripted"),
        ({"GOOGLE_API_KEY": "key"}, "gemini-2.5-flash"),
        ({"GOOGLE_GENAI_USE_VERTEXAI": "true"}, "gemini-2.5-flash"),
        ({"GOOGLE_GENAI_USE_VERTEXAI": "false"}, "scripted"),
        ({"GOOGLE_API_KEY": "key", "HOME_AGENT_MODEL": "gemini-2.5-pro"}, "gemini-2.5-pro"),
        ({"GOOGLE_API_KEY": "key", "HOME_AGENT_MODEL": "scripted"}, "scripted"),
    ],
)
def test_gemini_only_with_credentials(
    agent_module: ModuleType,
    monkeypatch: pytest.MonkeyPatch,
    environment: dict[str, str],
    model: str,
) -> None:
    for name in ("GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "HOME_AGENT_MODEL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    chosen = agent_module.choose_model()
    assert (chosen.model if isinstance(chosen, ScriptedLlm) else chosen) == (
        "home-scripted" if model == "scripted" else model
    )
    assert isinstance(chosen, ScriptedLlm) == (model == "scripted")
