"""Naming eval sets: files, directories, `file.json:case_a,case_b`, and their errors."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.evalset.evalset_adk_reference import VALID_DIR
from tracegrade.errors import EvalSetError
from tracegrade.evalset import load_eval_set, load_eval_sets, parse_selection

HOME = VALID_DIR / "home_automation" / "home.evalset.json"


@pytest.mark.parametrize(
    ("spec", "path", "selection"),
    [
        ("sets/home.evalset.json", "sets/home.evalset.json", None),
        ("sets/home.evalset.json:a,b", "sets/home.evalset.json", {"a", "b"}),
        ("home.evalset.json:a,,b:ignored", "home.evalset.json", {"a", "b"}),
        ("home.evalset.json: a , b", "home.evalset.json", {"a", "b"}),
        ("home.evalset.json:", "home.evalset.json", None),
        ("C:\\evals\\home.evalset.json:a", "C:\\evals\\home.evalset.json", {"a"}),
        ("C:/evals/home.evalset.json", "C:/evals/home.evalset.json", None),
    ],
)
def test_parse_selection_splits_like_adk_eval(
    spec: str, path: str, selection: set[str] | None
) -> None:
    assert parse_selection(spec) == (Path(path), selection)


def test_an_existing_path_with_a_colon_is_taken_whole(tmp_path: Path) -> None:
    odd = tmp_path / "home:v2.evalset.json"
    shutil.copy(HOME, odd)

    assert parse_selection(str(odd)) == (odd, None)
    assert load_eval_sets([str(odd)])[0].path == odd


def test_a_selection_keeps_only_those_cases_in_file_order() -> None:
    (loaded,) = load_eval_sets([f"{HOME}:list_everything,room_temperature"])

    assert [case.case_id for case in loaded.cases] == ["room_temperature", "list_everything"]
    assert loaded.content_sha256 == load_eval_set(HOME).content_sha256


def test_selections_of_one_file_merge() -> None:
    (loaded,) = load_eval_sets([f"{HOME}:list_everything", f"{HOME}:room_temperature"])

    assert [case.case_id for case in loaded.cases] == ["room_temperature", "list_everything"]


def test_naming_a_file_whole_and_with_a_selection_loads_it_whole() -> None:
    (loaded,) = load_eval_sets([f"{HOME}:room_temperature", HOME])

    assert len(loaded.cases) == len(load_eval_set(HOME).cases)


def test_a_file_inside_a_named_directory_loads_once() -> None:
    loaded = load_eval_sets([HOME.parent, HOME])

    assert [s.path for s in loaded].count(HOME) == 1


def test_selecting_a_missing_case_names_it_and_the_cases_there() -> None:
    with pytest.raises(EvalSetError) as caught:
        load_eval_sets([f"{HOME}:room_temperature,kitchen_lights"])

    assert str(caught.value) == (
        f"eval set '{HOME}': no case 'kitchen_lights' "
        "(cases: list_everything, list_then_turn_off, room_temperature)"
    )


def test_a_selection_on_a_directory_is_an_error() -> None:
    with pytest.raises(EvalSetError) as caught:
        load_eval_sets([f"{HOME.parent}:room_temperature"])

    assert str(caught.value) == (
        f"eval set '{HOME.parent}': a case selection needs a file, not a directory"
    )


def test_a_directory_without_eval_files_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "notes.json").write_text("{}", encoding="utf-8")

    with pytest.raises(EvalSetError) as caught:
        load_eval_sets([tmp_path])

    assert str(caught.value) == (
        f"eval set '{tmp_path}': no *.evalset.json or *.test.json files in it"
    )


def test_a_missing_file_says_so(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.evalset.json"

    with pytest.raises(EvalSetError) as caught:
        load_eval_sets([missing])

    assert str(caught.value) == f"eval set '{missing}': file not found"


def test_two_files_with_one_eval_set_id_are_an_error(tmp_path: Path) -> None:
    first = Path(shutil.copy(HOME, tmp_path / "a.evalset.json"))
    second = Path(shutil.copy(HOME, tmp_path / "b.evalset.json"))

    with pytest.raises(EvalSetError) as caught:
        load_eval_sets([first, second])

    assert str(caught.value) == (
        f"eval sets '{first}' and '{second}' share the id 'home_automation': "
        "eval set ids must be unique in one run"
    )
