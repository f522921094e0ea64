"""Printing a scoring's report and writing its files: shared by `run`, `score` and `report`."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from tracegrade.exit_codes import ExitCode
from tracegrade.workspace.store import Store

if TYPE_CHECKING:
    from tracegrade.report import DiffTolerances, RunDiff
    from tracegrade.report.baseline import Baseline
    from tracegrade.report.traffic.window import RuleWindow
    from tracegrade.report.traffic_diff.build import TrafficDiff
    from tracegrade.store import Reader


def emit_report(
    db: Path | None,
    server: str | None = None,
    scoring_id: str | None = None,
    json_path: Path | None = None,
    junit: Path | None = None,
    baseline: str | Baseline | None = None,
    run_id: str | None = None,
    html: Path | None = None,
    markdown: bool = False,
    shards: Sequence[Path] = (),
) -> ExitCode:
    """The summary on stdout (terminal or Markdown), files where asked; the exit code the
    gate (and diff) decide. `baseline`: resolved already (`run`), or as given (`report`).
    `shards`: other shards' files read with `db` as one."""
    with Store(db, server, shards).reader() as reader:
        # Before the summary: a mistyped baseline is all it says.
        base = _report_baseline(reader, baseline, scoring_id, run_id)
        shown = _emit_run(reader, scoring_id, run_id, json_path, junit, terminal=not markdown)
        code, run, scoring = shown
        diff = base.diff(reader, run) if base else None
        if html or markdown:
            _emit_pages(reader, scoring, diff, html, markdown)
        if diff is not None and diff.regressed and code == ExitCode.OK:
            code = ExitCode.GATE_FAILED
        if diff is not None and not markdown:
            _print_diff(diff, code)
    return code


def is_traffic_scoring(db: Path | None, server: str | None, ident: str) -> bool:
    """Whether `report ID` names a scoring of traffic rather than an eval run."""
    from tracegrade.report import traffic_scoring_exists

    with Store(db, server).reader() as reader:
        return traffic_scoring_exists(reader, ident)


def diff_named(
    db: Path | None, server: str | None, base: str, new: str, tolerances: DiffTolerances
) -> RunDiff:
    """`tracegrade diff BASE NEW`: two report files are compared without a database."""
    from tracegrade.report.baseline import diff_named, is_report_file

    if is_report_file(base) and is_report_file(new):
        return diff_named(None, base, new, tolerances)
    with Store(db, server).reader() as reader:
        return diff_named(reader, base, new, tolerances)


def traffic_diff(
    db: Path | None,
    server: str | None,
    rule: str | None,
    base: str | None,
    new: str | None,
    tolerances: DiffTolerances,
    window: str | None = None,
) -> TrafficDiff | None:
    """`tracegrade diff` on traffic: two scorings of traffic, a rule's two latest, or its
    last window against the one before; None when the two sides are eval runs (or report
    files), which `diff_named` compares."""
    from tracegrade.report.baseline import is_report_file
    from tracegrade.report.traffic.window import RuleWindow, diff_windows
    from tracegrade.report.traffic_diff.build import diff_traffic, latest_two, traffic_sides

    if rule is None and (is_report_file(str(base)) or is_report_file(str(new))):
        return None
    last = RuleWindow.last(rule, window) if rule and window else None
    with Store(db, server).reader() as reader:
        if last is not None:
            return diff_windows(reader, last, tolerances)
        base, new = latest_two(reader, rule) if rule else (str(base), str(new))
        if not traffic_sides(reader, base, new):
            return None
        return diff_traffic(reader, base, new, tolerances)


def _report_baseline(
    reader: Reader, baseline: str | Baseline | None, scoring_id: str | None, run_id: str | None
) -> Baseline | None:
    """`report --baseline` as given, resolved against the run reported."""
    if baseline is None or not isinstance(baseline, str):
        return baseline
    from tracegrade.report.baseline import baseline_of_run  # the diff: not for every report
    from tracegrade.report.queries import find_scoring

    shown = str(find_scoring(reader, scoring_id, run_id)["run_id"])
    return baseline_of_run(reader, baseline, shown)


def _emit_run(
    reader: Reader,
    scoring_id: str | None,
    run_id: str | None,
    json_path: Path | None,
    junit: Path | None,
    terminal: bool,
) -> tuple[ExitCode, str, str]:
    """A large run's overview, or the full summary (on the terminal, unless not asked);
    the full report is built only when a file needs it or the run is small enough to show
    case by case. The exit code, the run and the scoring shown."""
    from tracegrade.report import (
        build_overview,
        build_report,
        is_large,
        render_overview,
        render_terminal,
        to_json,
        to_junit,
    )

    large = is_large(reader, scoring_id, run_id)
    if large:
        overview = build_overview(reader, scoring_id, run_id)
        # Piped, the overview keeps its own width: it is a fixed summary, not columns to show whole.
        overview_width = width() or 100
        if terminal:
            typer.echo(render_overview(overview, width=overview_width, color=_color()), nl=False)
        scoring_id = overview.scoring.scoring_id  # the files describe the scoring shown
    if json_path or junit or not large:
        report = build_report(reader, scoring_id=scoring_id, run_id=run_id)
        if terminal and not large:
            typer.echo(render_terminal(report, width=width(), color=_color()), nl=False)
        if json_path:
            json_path.write_text(to_json(report))
        if junit:
            junit.write_text(to_junit(report))
        return ExitCode(report.exit_code), report.run.run_id, report.scoring.scoring_id
    return ExitCode(overview.exit_code), overview.run.run_id, overview.scoring.scoring_id


def _print_diff(diff: RunDiff, code: ExitCode) -> None:
    from tracegrade.report import render_diff

    typer.echo(render_diff(diff, width=width(), color=_color(), exit_code=code), nl=False)


def _emit_pages(
    reader: Reader, scoring_id: str, diff: RunDiff | None, html: Path | None, markdown: bool
) -> None:
    """The HTML file and the Markdown summary: both from one run page."""
    from tracegrade.report.pages import build_run_page, render_run_page
    from tracegrade.report.run.markdown import to_markdown

    page = build_run_page(reader, scoring_id=scoring_id, diff=diff, waterfalls=html is not None)
    if html:
        html.write_text(render_run_page(page, embed=True), encoding="utf-8")
    if markdown:
        typer.echo(to_markdown(page), nl=False)


def emit_traffic(
    db: Path | None,
    server: str | None,
    scoring_id: str | RuleWindow,
    json_path: Path | None = None,
    junit: Path | None = None,
    html: Path | None = None,
    shards: Sequence[Path] = (),
    markdown: bool = False,
) -> ExitCode:
    """A traffic scoring's (or a rule's window's) summary on stdout (terminal or Markdown),
    files where asked; the exit code its verdict decided. A window has no HTML page."""
    from tracegrade.report import (
        build_traffic_report,
        render_traffic,
        traffic_to_json,
        traffic_to_junit,
    )
    from tracegrade.report.traffic.markdown import traffic_to_markdown
    from tracegrade.report.traffic.window import build_window_report

    with Store(db, server, shards).reader() as reader:
        if isinstance(scoring_id, str):
            report = build_traffic_report(reader, scoring_id)
        else:
            report = build_window_report(reader, scoring_id)
        if markdown:
            typer.echo(traffic_to_markdown(report), nl=False)
        else:
            typer.echo(render_traffic(report, width=width(), color=_color()), nl=False)
        if html and isinstance(scoring_id, str):
            from tracegrade.report.pages import traffic_file

            html.write_text(traffic_file(reader, scoring_id), encoding="utf-8")
    if json_path:
        json_path.write_text(traffic_to_json(report))
    if junit:
        junit.write_text(traffic_to_junit(report))
    return ExitCode(report.exit_code)


def width() -> int | None:
    """The terminal's width; None when piped (CI logs, files): nothing to fit, so every
    column is shown whole. $COLUMNS, when set, is the width either way."""
    if "COLUMNS" in os.environ or sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    return None


def _color() -> bool:
    return sys.stdout.isatty()
