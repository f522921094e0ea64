"""Cases → ADK `*.evalset.json`: round trips through us and through ADK."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from google.adk.evaluation.eval_set import EvalSet as AdkEvalSet

from tests.evalset.evalset_adk_reference import (
    VALID_DIR,
    VALID_FILES,
    project_adk_case,
    project_case,
)
from tracegrade.evalset import (
    Case,
    ExpectedCall,
    ExpectedTurn,
    SessionSpec,
    eval_set_to_dict,
    load_eval_set,
    write_eval_set,
)


@pytest.mark.parametrize("path", VALID_FILES, ids=lambda p: p.name)
def test_load_write_load_gives_the_same_cases(path: Path, tmp_path: Path) -> None:
    loaded = load_eval_set(path)

    written = write_eval_set(tmp_path / "out.evalset.json", loaded.eval_set_id, loaded.cases)

    again = load_eval_set(written)
    assert again.cases == loaded.cases
    assert again.format == "evalset"


@pytest.mark.parametrize("path", VALID_FILES, ids=lambda p: p.name)
def test_adk_reads_what_we_write_as_we_do(path: Path) -> None:
    loaded = load_eval_set(path)

    adk = AdkEvalSet.model_validate(eval_set_to_dict(loaded.eval_set_id, loaded.cases))

    assert adk.eval_set_id == loaded.eval_set_id
    assert [c.eval_id for c in adk.eval_cases] == [c.case_id for c in loaded.cases]
    assert [project_adk_case(c) for c in adk.eval_cases] == [project_case(c) for c in loaded.cases]


def _one_case(turn: ExpectedTurn, session: SessionSpec | None = None) -> Case:
    return Case(eval_set_id="prod", case_id="turn_1", session=session, turns=(turn,))


def test_output_is_snake_case_without_unset_values() -> None:
    turn = ExpectedTurn(
        turn_index=0,
        user_text="Turn off the lights",
        final_text=None,
        tool_calls=(ExpectedCall("list_devices", {}), ExpectedCall("list_devices", None)),
    )

    written = eval_set_to_dict("prod", [_one_case(turn, SessionSpec("home", "u1"))])

    assert written == {
        "eval_set_id": "prod",
        "eval_cases": [
            {
                "eval_id": "turn_1",
                "conversation": [
                    {
                        "user_content": {
                            "role": "user",
                            "parts": [{"text": "Turn off the lights"}],
                        },
                        "intermediate_data": {
                            "tool_uses": [
                                {"name": "list_devices", "args": {}},
                                {"name": "list_devices"},
                            ]
                        },
                    }
                ],
                "session_input": {"app_name": "home", "user_id": "u1"},
            }
        ],
    }


def test_a_scenario_case_is_written_as_a_scenario() -> None:
    (scenario_case,) = [
        c
        for c in load_eval_set(VALID_DIR / "hello_world" / "dice.evalset.json").cases
        if c.scenario
    ]

    (written,) = eval_set_to_dict("dice", [scenario_case])["eval_cases"]

    assert "conversation" not in written
    assert written["conversation_scenario"]["user_persona"] == "NOVICE"


def test_written_files_are_indented_utf8_json(tmp_path: Path) -> None:
    turn = ExpectedTurn(turn_index=0, user_text="Wie warm ist es?", final_text="22,5 °C")

    path = write_eval_set(tmp_path / "prod.evalset.json", "prod", [_one_case(turn)])

    text = path.read_text(encoding="utf-8")
    assert "22,5 °C" in text
    assert text.startswith('{\n  "eval_set_id"')
    assert json.loads(text)["eval_cases"][0]["conversation"][0]["final_response"] == {
        "role": "model",
        "parts": [{"text": "22,5 °C"}],
    }
