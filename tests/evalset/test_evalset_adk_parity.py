"""What we extract from every valid fixture equals what ADK's own loaders give."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.evalset.evalset_adk_reference import (
    VALID_FILES,
    load_with_adk,
    project_adk_case,
    project_case,
)
from tracegrade.evalset import load_eval_set


def test_fixtures_cover_every_format() -> None:
    formats = {load_eval_set(path).format for path in VALID_FILES}
    assert formats == {"evalset", "legacy_list", "test_rows"}


@pytest.mark.parametrize("path", VALID_FILES, ids=lambda p: p.name)
def test_cases_match_adk(path: Path) -> None:
    ours = load_eval_set(path)
    adk = load_with_adk(path)

    assert [project_case(case) for case in ours.cases] == [
        project_adk_case(case) for case in adk.eval_cases
    ]


@pytest.mark.parametrize("path", VALID_FILES, ids=lambda p: p.name)
def test_case_ids_match_adk_where_the_file_names_them(path: Path) -> None:
    ours = load_eval_set(path)
    adk = load_with_adk(path)

    if ours.format == "test_rows":
        # AgentEvaluator names the one case after the file path and the set by a random
        # UUID; we use the file name without `.test.json` for both.
        assert [c.case_id for c in ours.cases] == [path.name.removesuffix(".test.json")]
        assert len(adk.eval_cases) == 1
    else:
        assert [c.case_id for c in ours.cases] == [c.eval_id for c in adk.eval_cases]
    if ours.format == "evalset":
        assert ours.eval_set_id == adk.eval_set_id


@pytest.mark.parametrize("path", VALID_FILES, ids=lambda p: p.name)
def test_turn_indexes_are_positions(path: Path) -> None:
    for case in load_eval_set(path).cases:
        assert [turn.turn_index for turn in case.turns] == list(range(len(case.turns)))
