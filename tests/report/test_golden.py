"""Every user-facing format against its golden file, for runs with passing, failing, flaky
and errored cases. `pytest tests/report --update-golden` rewrites them; read the diff."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.report.helpers import BASE_RUN, NEXT_RUN, SCORED_AT, fixed_scoring
from tests.support.tiers import costly
from tracegrade.report import (
    RunReport,
    build_report,
    diff_runs,
    diff_to_json,
    list_runs,
    render_diff,
    render_runs,
    render_terminal,
    to_json,
    to_junit,
)
from tracegrade.store import LocalReader

Golden = Callable[[str, str], None]


@pytest.mark.parametrize("width", [80, 120, None], ids=["80", "120", "piped"])
@costly
def test_terminal_summary(base_report: RunReport, golden: Golden, width: int | None) -> None:
    report = fixed_scoring(base_report, "scoring-base")
    text = render_terminal(report, width=width, color=False)
    golden(f"run_terminal_{width or 'piped'}.txt", text)
    table = text.split("\nrun metric")[0]
    if width is not None:
        assert max(len(line) for line in text.splitlines()) <= width
    # Headers and cells whole: no word split across lines, no value cut.
    for whole in ("trajectory", "avg_score", "response", "p50/p95", "two_turns_with_state"):
        assert whole in table or (width == 80 and whole == "p50/p95")
    assert ("$0.000645*" in table) == (width != 80)


def test_json_report(base_report: RunReport, golden: Golden) -> None:
    report = fixed_scoring(base_report, "scoring-base")
    golden("run_report.json", to_json(report))


def test_junit_report(base_report: RunReport, golden: Golden) -> None:
    report = fixed_scoring(base_report, "scoring-base")
    golden("run_junit.xml", to_junit(report))


def test_terminal_summary_of_a_fixed_run(reader: LocalReader, golden: Golden) -> None:
    report = fixed_scoring(build_report(reader, run_id=NEXT_RUN), "scoring-next")
    golden("next_run_terminal.txt", render_terminal(report, width=100, color=False))


def test_diff(reader: LocalReader, golden: Golden) -> None:
    diff = diff_runs(reader, BASE_RUN, NEXT_RUN)
    fixed = diff.model_copy(
        update={"base_scoring_id": "scoring-base", "new_scoring_id": "scoring-next"}
    )
    golden("diff.txt", render_diff(fixed))
    golden("diff.json", diff_to_json(fixed))


def test_runs_list(reader: LocalReader, golden: Golden) -> None:
    runs = [
        r.model_copy(update={"scoring_id": f"scoring-{r.run_id[-4:]}"}) for r in list_runs(reader)
    ]
    golden("runs.txt", render_runs(runs))


def test_color_is_only_styling(base_report: RunReport) -> None:
    plain = render_terminal(base_report)
    colored = render_terminal(base_report, color=True)
    assert "\x1b[" in colored
    assert "\x1b[" not in plain
    assert _strip_ansi(colored) == plain


def test_golden_files_hold_no_volatile_values() -> None:
    golden_dir = Path(__file__).parents[1] / "data" / "report" / "golden"
    for path in golden_dir.iterdir():
        text = path.read_text()
        assert not re.search(r"/(work|home|tmp|Users)/", text), path  # no machine paths
        if path.name.startswith("run_report"):
            assert SCORED_AT in text


def _strip_ansi(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)
