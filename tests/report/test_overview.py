"""The overview a large run prints instead of its case table: the same figures as the full
report, read from the scores tables alone, in a screen or two whatever the run's size."""

from __future__ import annotations

from collections.abc import Callable

from tests.report.helpers import BASE_RUN, NEXT_RUN
from tracegrade.report import RunReport, build_overview, build_report, render_overview
from tracegrade.report.overview.build import RunOverview
from tracegrade.store import LocalReader

Golden = Callable[[str, str], None]


def _fixed(overview: RunOverview) -> RunOverview:
    scoring = overview.scoring.model_copy(update={"scoring_id": "scoring-base"})
    return overview.model_copy(update={"scoring": scoring})


def test_overview_golden(reader: LocalReader, golden: Golden) -> None:
    overview = _fixed(build_overview(reader, run_id=BASE_RUN))
    golden("run_overview.txt", render_overview(overview, width=100, color=False))


def test_overview_figures_equal_the_full_reports(reader: LocalReader) -> None:
    for run_id in (BASE_RUN, NEXT_RUN):
        full: RunReport = build_report(reader, run_id=run_id)
        overview = build_overview(reader, run_id=run_id)
        left_out = {"input_tokens", "output_tokens"}  # the overview shows total tokens only
        assert overview.totals.model_dump(exclude=left_out) == full.totals.model_dump(
            exclude=left_out
        )
        verdicts = [c.verdict for c in full.cases]
        assert overview.counts.cases == len(full.cases)
        assert overview.counts.passed == verdicts.count("passed")
        assert overview.counts.failed == verdicts.count("failed")
        assert overview.counts.errored == verdicts.count("error")
        assert overview.counts.flaky == sum(c.flaky for c in full.cases)
        assert overview.counts.with_errors == sum(1 for c in full.cases if c.errored_repeats)
        assert (overview.errored_repeats, overview.total_repeats) == (
            full.errored_repeats,
            full.total_repeats,
        )
        assert overview.metrics == full.metrics
        assert (overview.verdict, overview.exit_code) == (full.verdict, full.exit_code)
        failing = {c.case_id for c in full.cases if c.verdict == "failed"}
        assert {c.case_id for c in overview.worst_failed} == failing
        erroring = {c.case_id for c in full.cases if c.errored_repeats}
        assert {c.case_id for c in overview.worst_errored} == erroring


def test_overview_counts_the_cases_it_leaves_out(reader: LocalReader) -> None:
    full = build_report(reader, run_id=BASE_RUN)
    failing = sum(1 for c in full.cases if c.verdict == "failed")
    assert failing >= 2
    text = render_overview(build_overview(reader, run_id=BASE_RUN, worst=1))
    assert f"Worst failures (1 of {failing} failing cases, worst first)" in text
    rest = failing - 1
    assert f"… and {rest} more failing {'case' if rest == 1 else 'cases'}" in text
