from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.judging import SwitchJudge, run_house
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.testing import judge_answers


@pytest.fixture
def switch_judge() -> Iterator[type[SwitchJudge]]:
    SwitchJudge.answers = staticmethod(judge_answers.auto)
    SwitchJudge.instances = []
    yield SwitchJudge
    SwitchJudge.instances = []


@pytest.fixture
def house_run(captured: BlockingSpanProcessor, tmp_path: Path) -> str:
    """The house eval set, replayed once and stored: its run id."""
    run_id = run_house(tmp_path)
    assert captured.force_flush()
    return run_id
