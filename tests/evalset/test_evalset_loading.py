"""Loading the fixtures: formats, normalisation rules, replayability."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from google.adk.evaluation.eval_set import EvalSet

from tests.evalset.evalset_adk_reference import VALID_DIR, VALID_FILES
from tracegrade.errors import EvalSetError
from tracegrade.evalset import (
    Case,
    ExpectedCall,
    IntermediateResponse,
    LoadedEvalSet,
    load_eval_set,
    load_eval_sets,
)

HOME = VALID_DIR / "home_automation" / "home.evalset.json"
HOME_CAMEL = VALID_DIR / "home_automation" / "home_camel.evalset.json"
DICE = VALID_DIR / "hello_world" / "dice.evalset.json"
LEGACY = VALID_DIR / "hello_world" / "roll_legacy.evalset.json"
TRIP = VALID_DIR / "trip_planner" / "trip_inquiry.test.json"


def _case(loaded: LoadedEvalSet, case_id: str) -> Case:
    return next(case for case in loaded.cases if case.case_id == case_id)


def _raw(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_a_directory_loads_every_eval_file_in_path_order() -> None:
    loaded = load_eval_sets([VALID_DIR])

    assert [s.path for s in loaded] == VALID_FILES
    assert [s.path for s in loaded] == sorted(s.path for s in loaded)


@pytest.mark.parametrize("path", VALID_FILES, ids=lambda p: p.name)
def test_content_sha256_is_the_hash_of_the_file_bytes(path: Path) -> None:
    assert load_eval_set(path).content_sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_hash_changes_with_one_byte(tmp_path: Path) -> None:
    copy = tmp_path / "home.evalset.json"
    copy.write_bytes(HOME.read_bytes() + b" ")

    assert load_eval_set(copy).content_sha256 != load_eval_set(HOME).content_sha256


def test_camel_case_inside_cases_reads_like_snake_case() -> None:
    snake, camel = load_eval_set(HOME), load_eval_set(HOME_CAMEL)

    assert camel.eval_set_id != snake.eval_set_id
    renamed = [dataclasses.replace(c, eval_set_id=snake.eval_set_id) for c in camel.cases]
    assert renamed == list(snake.cases)


def test_final_text_joins_non_empty_text_parts_with_newlines() -> None:
    raw_parts = _raw(HOME)["eval_cases"][0]["conversation"][1]["final_response"]["parts"]
    turn = _case(load_eval_set(HOME), "list_then_turn_off").turns[1]

    assert turn.final_text == "\n".join(p["text"] for p in raw_parts if p["text"])
    assert turn.final_text is not None
    assert turn.final_text.count("\n") == 1


def test_no_final_response_is_none_and_an_empty_reference_is_empty() -> None:
    no_reference = _case(load_eval_set(HOME), "list_everything").turns[0]
    legacy_without_reference = _case(load_eval_set(LEGACY), "check_three_numbers").turns[0]

    assert no_reference.final_text is None
    # ADK turns a missing old-format `reference` into an empty text part.
    assert legacy_without_reference.final_text == ""


def test_empty_args_and_missing_args_stay_distinct() -> None:
    calls = _case(load_eval_set(HOME), "list_everything").turns[0].tool_calls

    assert calls == (ExpectedCall("list_devices", {}), ExpectedCall("list_devices", None))
    assert calls[0] != calls[1]


def test_invocation_events_give_calls_in_part_order_and_text_before_calls() -> None:
    dice = load_eval_set(DICE)
    parallel = _case(dice, "parallel_rolls").turns[0]
    check = _case(dice, "roll_then_check_prime").turns[1]

    assert [call.args for call in parallel.tool_calls] == [{"sides": 6}, {"sides": 10}]
    assert check.tool_calls == (ExpectedCall("check_prime", {"nums": [13]}),)
    assert check.intermediate_responses == (
        IntermediateResponse("hello_world_agent", "Let me check that for you."),
    )


def test_a_conversation_scenario_loads_to_be_played_by_the_simulator() -> None:
    case = _case(load_eval_set(DICE), "free_chat_about_dice")
    raw = _raw(DICE)["eval_cases"][2]["conversation_scenario"]

    assert case.replayable
    assert case.turns == ()
    assert case.scenario is not None
    assert (case.scenario.starting_prompt, case.scenario.user_persona) == (
        raw["starting_prompt"],
        raw["user_persona"],
    )


def test_static_conversations_are_replayable() -> None:
    cases = [c for s in load_eval_sets([VALID_DIR]) for c in s.cases if c.scenario is None]

    assert cases
    assert all(case.replayable for case in cases)


def test_session_input_is_normalised() -> None:
    home = load_eval_set(HOME)
    raw = _raw(HOME)["eval_cases"][0]["session_input"]
    session = _case(home, "list_then_turn_off").session
    pinned = _case(home, "room_temperature").session

    assert session is not None
    assert pinned is not None
    assert (session.app_name, session.user_id, session.state) == (
        raw["app_name"],
        raw["user_id"],
        raw["state"],
    )
    assert session.session_id is None
    assert pinned.session_id == "pinned-session-1"
    assert _case(home, "list_everything").session is None


def test_a_test_file_is_one_case_with_the_initial_session_beside_it() -> None:
    loaded = load_eval_set(TRIP)
    session_raw = _raw(TRIP.parent / "initial.session.json")
    (case,) = loaded.cases

    assert loaded.format == "test_rows"
    assert loaded.session_file == TRIP.parent / "initial.session.json"
    assert (loaded.eval_set_id, case.case_id) == ("trip_inquiry", "trip_inquiry")
    assert case.session is not None
    assert (case.session.app_name, case.session.state) == (
        session_raw["app_name"],
        session_raw["state"],
    )
    assert [turn.user_text for turn in case.turns] == [row["query"] for row in _raw(TRIP)]


def test_a_test_file_without_a_session_file_has_no_session(tmp_path: Path) -> None:
    copy = Path(shutil.copy(TRIP, tmp_path))

    loaded = load_eval_set(copy)

    assert loaded.session_file is None
    assert loaded.cases[0].session is None


def test_legacy_cases_convert_rows_to_turns() -> None:
    loaded = load_eval_set(LEGACY)
    raw = _raw(LEGACY)
    greet = _case(loaded, "greet_then_roll_twice")

    assert loaded.format == "legacy_list"
    assert loaded.eval_set_id == "roll_legacy"
    assert [c.case_id for c in loaded.cases] == [entry["name"] for entry in raw]
    assert [t.tool_calls for t in greet.turns][1] == tuple(
        ExpectedCall(u["tool_name"], u["tool_input"])
        for u in raw[0]["data"][1]["expected_tool_use"]
    )
    # ADK builds a session only from a non-empty `initial_session`.
    assert greet.session is not None
    assert _case(loaded, "check_three_numbers").session is None


def _add_future_keys(data: dict[str, Any]) -> dict[str, Any]:
    # Adds an unknown key to every model-shaped object (not to args or state, which are data).
    data["added_in_adk_9"] = True
    for case in data["eval_cases"]:
        case["addedInAdk9"] = {"nested": 1}
        for invocation in case["conversation"]:
            invocation["added_in_adk_9"] = 1
            invocation["user_content"]["added_in_adk_9"] = 1
            for part in invocation["user_content"]["parts"]:
                part["added_in_adk_9"] = 1
            for call in invocation.get("intermediate_data", {}).get("tool_uses", []):
                call["added_in_adk_9"] = 1
    return data


def test_keys_adk_refuses_refuse_the_file_unless_ignored(tmp_path: Path) -> None:
    newer = tmp_path / "home.evalset.json"
    newer.write_text(json.dumps(_add_future_keys(_raw(HOME))), encoding="utf-8")

    with pytest.raises(EvalSetError) as refused:
        load_eval_set(newer)
    with pytest.raises(ValueError, match="Extra inputs are not permitted"):  # ADK refuses it too
        EvalSet.model_validate(json.loads(newer.read_text()))
    ignored = load_eval_set(newer, ignore_unknown_keys=True)

    first = _raw(HOME)["eval_cases"][0]["eval_id"]
    assert str(refused.value).startswith(
        f"eval set '{newer}' case '{first}': conversation[0] (and "
    )
    assert "ADK refuses the unknown key added_in_adk_9; fix the file, or pass" in str(refused.value)
    assert ignored.cases == load_eval_set(HOME).cases
    assert ignored.warnings == (
        f"eval set '{newer}': ignoring keys ADK refuses: added_in_adk_9; first in case "
        f"'{first}': conversation[0] (and {_refused_places(_raw(HOME)) - 1} more places)",
    )


def test_keys_adk_allows_are_ignored(tmp_path: Path) -> None:
    data = _raw(HOME)
    data["added_in_adk_9"] = True  # EvalSet ignores unknown keys,
    for case in data["eval_cases"]:
        case["addedInAdk9"] = {"nested": 1}  # EvalCase and SessionInput allow them
    newer = tmp_path / "home.evalset.json"
    newer.write_text(json.dumps(data), encoding="utf-8")

    EvalSet.model_validate(data)
    assert load_eval_set(newer).cases == load_eval_set(HOME).cases
    assert load_eval_set(newer).warnings == ()


def _refused_places(data: dict[str, Any]) -> int:
    """Objects `_add_future_keys` gives a key ADK refuses: invocations, user messages,
    their parts and the expected calls."""
    return sum(
        2
        + len(invocation["user_content"]["parts"])
        + len(invocation.get("intermediate_data", {}).get("tool_uses", []))
        for case in data["eval_cases"]
        for invocation in case["conversation"]
    )


def _single_turn_set(user_content: dict[str, Any], conversation: bool = True) -> dict[str, Any]:
    turns = [{"user_content": user_content}] if conversation else []
    return {"eval_set_id": "s", "eval_cases": [{"eval_id": "c", "conversation": turns}]}


def test_media_in_a_user_message_makes_the_case_not_replayable(tmp_path: Path) -> None:
    photo = {"parts": [{"text": "What is this?"}, {"inlineData": {"mimeType": "image/png"}}]}
    path = tmp_path / "photo.evalset.json"
    path.write_text(json.dumps(_single_turn_set(photo)), encoding="utf-8")

    (case,) = load_eval_set(path).cases

    assert not case.replayable
    assert case.reason_not_replayable == (
        "conversation[0].user_content has media parts, which are not replayed"
    )
    assert case.turns[0].user_text == "What is this?"


def test_an_empty_conversation_is_not_replayable(tmp_path: Path) -> None:
    path = tmp_path / "empty.evalset.json"
    path.write_text(json.dumps(_single_turn_set({}, conversation=False)), encoding="utf-8")

    (case,) = load_eval_set(path).cases

    assert case.turns == ()
    assert case.reason_not_replayable == "conversation has no turns"


def test_an_empty_list_is_an_eval_set_without_cases(tmp_path: Path) -> None:
    path = tmp_path / "nothing_yet.evalset.json"
    path.write_text("[]", encoding="utf-8")

    loaded = load_eval_set(path)

    assert (loaded.eval_set_id, loaded.format, loaded.cases) == ("nothing_yet", "legacy_list", ())
