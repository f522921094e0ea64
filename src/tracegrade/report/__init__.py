"""Reports: what a scoring found, for people (terminal), for diffing (JSON), for CI (JUnit,
Markdown) and as HTML pages.

Everything here reads through a `Reader`, so it works on the DuckDB file or through a
`tracegrade serve` that owns it, and returns objects or strings: the CLI writes them.

One rule, by kind: each kind of report is a package, `report/<kind>/`, holding `build.py`
(its pydantic models read from the database, no formatting, and their JSON, which is the
models dumped as they are) and one module per other output format it has: `text.py` for
people, `markdown.py` for a CI comment, `junit.py` for a CI test report. A format a kind
does not have is simply absent. The kinds:

    run/           build  text (+ table, its case table)  markdown  junit
    overview/      build  text                              (a large run in a screen or two)
    diff/          build  text                              (Markdown and pages render it too)
    traffic/       build  text  markdown  junit
    traffic_diff/  build  text
    runs/          build  text                              (the lists of runs and scorings)

`pages/` is the HTML of every kind (the files and serve's live pages share one template set
and its static assets), so it is one package by format. The modules left at the top are the
parts the kinds share: `models` (the run report's models, which diff, pages and traffic read
too), `queries`, `summary`, `explain`, `values`, `judges`, `simulator`, `unevaluated`,
`diff_measures` (one measure's change, for both diffs) and `baseline` (which run a diff
compares against).

    report = build_report(reader, run_id=...)      # the latest scoring of the run
    render_terminal(report) / to_json(report) / to_junit(report)
    render_overview(build_overview(reader, run_id=...))   # a large run in a screen or two
    render_diff(diff_runs(reader, base_run_id, new_run_id))   # / diff_to_json; .failed: exit 1
    render_runs(list_runs(reader))
    render_traffic(build_traffic_report(reader, scoring_id))   # traffic_to_json / _junit
    render_traffic_diff(diff_traffic(reader, base_scoring_id, new_scoring_id))
    render_traffic_scorings(list_traffic_scorings(reader))

The names load on first use: a read command imports the one kind it prints (`runs`
needs none of the run report's models or the diff), not every kind.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from tracegrade.report.diff.build import (
        CaseChange,
        CaseDiff,
        DiffTolerances,
        RunDiff,
        diff_reports,
        diff_runs,
        diff_to_json,
    )
    from tracegrade.report.diff.text import render_diff
    from tracegrade.report.models import CaseReport, RepeatReport, RunReport, TurnReport
    from tracegrade.report.overview.build import RunOverview, build_overview, is_large
    from tracegrade.report.overview.text import render_overview
    from tracegrade.report.queries import ReportError
    from tracegrade.report.run.build import build_report, to_json
    from tracegrade.report.run.junit import to_junit
    from tracegrade.report.run.text import render_terminal
    from tracegrade.report.runs.build import (
        RunSummary,
        TrafficScoringSummary,
        list_runs,
        list_traffic_scorings,
    )
    from tracegrade.report.runs.text import render_runs, render_traffic_scorings
    from tracegrade.report.traffic.build import (
        TrafficReport,
        TrafficRow,
        build_traffic_report,
        traffic_scoring_exists,
        traffic_to_json,
    )
    from tracegrade.report.traffic.junit import traffic_to_junit
    from tracegrade.report.traffic.text import render_traffic

_LAZY = {
    "CaseChange": "tracegrade.report.diff.build",
    "CaseDiff": "tracegrade.report.diff.build",
    "DiffTolerances": "tracegrade.report.diff.build",
    "RunDiff": "tracegrade.report.diff.build",
    "diff_reports": "tracegrade.report.diff.build",
    "diff_runs": "tracegrade.report.diff.build",
    "diff_to_json": "tracegrade.report.diff.build",
    "render_diff": "tracegrade.report.diff.text",
    "CaseReport": "tracegrade.report.models",
    "RepeatReport": "tracegrade.report.models",
    "RunReport": "tracegrade.report.models",
    "TurnReport": "tracegrade.report.models",
    "RunOverview": "tracegrade.report.overview.build",
    "build_overview": "tracegrade.report.overview.build",
    "is_large": "tracegrade.report.overview.build",
    "render_overview": "tracegrade.report.overview.text",
    "ReportError": "tracegrade.report.queries",
    "build_report": "tracegrade.report.run.build",
    "to_json": "tracegrade.report.run.build",
    "to_junit": "tracegrade.report.run.junit",
    "render_terminal": "tracegrade.report.run.text",
    "RunSummary": "tracegrade.report.runs.build",
    "TrafficScoringSummary": "tracegrade.report.runs.build",
    "list_runs": "tracegrade.report.runs.build",
    "list_traffic_scorings": "tracegrade.report.runs.build",
    "render_runs": "tracegrade.report.runs.text",
    "render_traffic_scorings": "tracegrade.report.runs.text",
    "TrafficReport": "tracegrade.report.traffic.build",
    "TrafficRow": "tracegrade.report.traffic.build",
    "build_traffic_report": "tracegrade.report.traffic.build",
    "traffic_scoring_exists": "tracegrade.report.traffic.build",
    "traffic_to_json": "tracegrade.report.traffic.build",
    "traffic_to_junit": "tracegrade.report.traffic.junit",
    "render_traffic": "tracegrade.report.traffic.text",
}

__all__ = [
    "CaseChange",
    "CaseDiff",
    "CaseReport",
    "DiffTolerances",
    "RepeatReport",
    "ReportError",
    "RunDiff",
    "RunOverview",
    "RunReport",
    "RunSummary",
    "TrafficReport",
    "TrafficRow",
    "TrafficScoringSummary",
    "TurnReport",
    "build_overview",
    "build_report",
    "build_traffic_report",
    "diff_reports",
    "diff_runs",
    "diff_to_json",
    "is_large",
    "list_runs",
    "list_traffic_scorings",
    "render_diff",
    "render_overview",
    "render_runs",
    "render_terminal",
    "render_traffic",
    "render_traffic_scorings",
    "to_json",
    "to_junit",
    "traffic_scoring_exists",
    "traffic_to_json",
    "traffic_to_junit",
]

__getattr__ = lazy_attributes(__name__, _LAZY)
