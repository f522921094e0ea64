"""Every real eval file loads as google-adk loads it, or is refused as ADK refuses it; and
every test_config.json beside them reads as ADK reads it."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
from google.adk.evaluation.eval_config import get_evaluation_criteria_or_default

from tests.evalset.evalset_adk_reference import load_with_adk, project_adk_case, project_case
from tests.peer.material import EVALFILES, file_id, real_files
from tracegrade.errors import EvalSetError
from tracegrade.evalset import load_eval_set
from tracegrade.scoring import load_scoring_config
from tracegrade.scoring.criteria import NOT_COMPUTED

CONFIGS = sorted(EVALFILES.rglob("test_config.json"))


def _adk(path: Path) -> object | None:
    """ADK's reading of the file, or None where ADK refuses it (whatever it raises)."""
    logging.getLogger("google_adk").setLevel(logging.CRITICAL)  # its old-format notices
    try:
        return load_with_adk(path)
    except Exception:  # pydantic's ValidationError, ValueError, TypeError...: ADK refuses
        return None


@pytest.mark.parametrize("path", real_files(), ids=file_id)
def test_loads_or_is_refused_as_in_adk(path: Path) -> None:
    adk = _adk(path)
    if adk is None:
        with pytest.raises(EvalSetError, match=re.escape(f"eval set '{path}'")):
            load_eval_set(path)
        return
    ours = load_eval_set(path)
    assert [project_case(c) for c in ours.cases] == [
        project_adk_case(c)
        for c in adk.eval_cases  # type: ignore[attr-defined]
    ]


def test_adk_refuses_seven_of_the_files() -> None:
    # Not vacuous: the refusals above are real ones (README of tests/data/peer).
    assert sum(_adk(path) is None for path in real_files()) == 7


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: str(p.relative_to(EVALFILES)))
def test_criteria_read_as_in_adk(path: Path) -> None:
    adk = get_evaluation_criteria_or_default(str(path)).criteria
    ours = load_scoring_config(path).config
    # ADK's metrics are ours by name (judged ones too), or left out as not computed, with
    # the same bounds.
    assert set(adk) == set(ours.criteria) | set(ours.not_evaluated)
    assert set(ours.not_evaluated) <= set(NOT_COMPUTED)
    for name, criterion in ours.criteria.items():
        given = adk[name]
        threshold = given if isinstance(given, float | int) else given.threshold
        assert criterion.threshold == threshold
