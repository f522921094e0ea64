"""Malformed input gives one line naming file, case and field — never a pydantic dump."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.evalset.evalset_adk_reference import INVALID_DIR, VALID_DIR
from tracegrade.errors import EvalSetError, TracegradeError
from tracegrade.evalset import load_eval_set, load_eval_sets

EXPECTED = {
    "missing_user_content.evalset.json": "case 'list_then_turn_off': "
    "conversation[1].user_content: field required",
    "conversation_and_scenario.evalset.json": "case 'roll_both_ways': "
    "exactly one of conversation and conversation_scenario must be given",
    "invalid_json.evalset.json": "invalid JSON at line 4, column 21: Expecting ',' delimiter",
    "args_not_object.evalset.json": "case 'set_temperature': "
    "conversation[0].intermediate_data.tool_uses[0].args: input should be a valid dictionary",
    "unknown_format.evalset.json": "unknown format: expected an EvalSet object (eval_set_id, "
    "eval_cases), a list of old-format cases (name, data) or a list of test rows (query, "
    "expected_tool_use, ...)",
    "duplicate_case_id.evalset.json": "case 'roll_d6': duplicate case id: "
    "eval_cases[2] repeats eval_cases[0]",
    "camel_top_level.evalset.json": "the top level must use snake_case keys "
    "(eval_set_id, eval_cases): ADK reads it that way",
    "row_without_query.test.json": "[1].query: field required",
    "legacy_without_tool_input.evalset.json": "case 'roll_once': "
    "data[0].expected_tool_use[0].tool_input: field required",
}


def _message_for(path: Path) -> str:
    tail = EXPECTED[path.name]
    joiner = " " if tail.startswith("case '") else ": "
    return f"eval set '{path}'{joiner}{tail}"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_bad_file_gives_its_one_line_message(name: str) -> None:
    path = INVALID_DIR / name

    with pytest.raises(EvalSetError) as caught:
        load_eval_set(path)

    assert str(caught.value) == _message_for(path)
    assert "\n" not in str(caught.value)
    # No pydantic/json exception is chained, so nothing prints a second traceback.
    error = caught.value
    assert error.__cause__ is None
    assert error.__context__ is None or error.__suppress_context__


def test_every_invalid_fixture_has_an_expected_message() -> None:
    fixtures = {p.name for p in INVALID_DIR.iterdir() if p.name.endswith(".json")}

    assert fixtures - {"criterion_without_threshold.json"} == set(EXPECTED)


def test_eval_set_errors_are_tracegrade_errors() -> None:
    assert issubclass(EvalSetError, TracegradeError)


def test_a_case_without_an_id_is_named_by_position(tmp_path: Path) -> None:
    path = tmp_path / "x.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "x", "eval_cases": [{"conversation": []}]}))

    with pytest.raises(EvalSetError) as caught:
        load_eval_set(path)

    assert str(caught.value) == f"eval set '{path}': eval_cases[0].eval_id: field required"


def test_several_problems_report_the_first_and_count_the_rest(tmp_path: Path) -> None:
    turns: list[dict[str, Any]] = [{"final_response": {"parts": []}}] * 3
    path = tmp_path / "x.evalset.json"
    path.write_text(
        json.dumps({"eval_set_id": "x", "eval_cases": [{"eval_id": "c", "conversation": turns}]})
    )

    with pytest.raises(EvalSetError) as caught:
        load_eval_set(path)

    assert str(caught.value) == (
        f"eval set '{path}' case 'c': conversation[0].user_content: field required (and 2 more)"
    )


def test_a_bad_initial_session_file_is_named(tmp_path: Path) -> None:
    test_file = Path(shutil.copy(VALID_DIR / "trip_planner" / "trip_inquiry.test.json", tmp_path))
    session_file = tmp_path / "initial.session.json"
    session_file.write_text('{"app_name": "trip", "state": []}', encoding="utf-8")

    with pytest.raises(EvalSetError) as caught:
        load_eval_sets([test_file])

    assert str(caught.value) == (
        f"initial session '{session_file}': state: input should be a valid dictionary"
    )


def test_a_file_that_is_not_utf8_says_so(tmp_path: Path) -> None:
    path = tmp_path / "latin1.evalset.json"
    raw = '{"eval_set_id": "caf\u00e9"}'.encode("latin-1")
    path.write_bytes(raw)

    with pytest.raises(EvalSetError) as caught:
        load_eval_set(path)

    assert str(caught.value) == f"eval set '{path}': not UTF-8 (byte {raw.index(0xE9)})"


def test_a_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    home = VALID_DIR / "home_automation" / "home.evalset.json"
    path = tmp_path / "bom.evalset.json"
    path.write_bytes(b"\xef\xbb\xbf" + home.read_bytes())

    assert load_eval_set(path).cases == load_eval_set(home).cases


@pytest.mark.parametrize("content", ['"hello"', "[1, 2]", '{"cases": []}', "null"])
def test_json_of_no_known_shape_is_an_unknown_format(tmp_path: Path, content: str) -> None:
    path = tmp_path / "odd.evalset.json"
    path.write_text(content, encoding="utf-8")

    with pytest.raises(EvalSetError) as caught:
        load_eval_set(path)

    assert str(caught.value).startswith(f"eval set '{path}': unknown format: expected an EvalSet")


def test_a_first_row_without_query_is_still_read_as_test_rows(tmp_path: Path) -> None:
    path = tmp_path / "rows.test.json"
    path.write_text(json.dumps([{"reference": "Hi!"}, {"query": "hi"}]), encoding="utf-8")

    with pytest.raises(EvalSetError) as caught:
        load_eval_set(path)

    assert str(caught.value) == f"eval set '{path}': [0].query: field required"
