"""Printing a scoring's report and writing its files: shared by `run`, `score` and `report`."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import typer

from tracegrade.cli._access import open_reader
from tracegrade.exit_codes import ExitCode


def emit_report(
    db: Path | None,
    server: str | None = None,
    scoring_id: str | None = None,
    json_path: Path | None = None,
    junit: Path | None = None,
    baseline: str | None = None,
    run_id: str | None = None,
) -> ExitCode:
    """The summary on stdout, files where asked; the exit code the gate (and diff) decide."""
    from tracegrade.report import (
        build_report,
        diff_runs,
        render_diff,
        render_terminal,
        to_json,
        to_junit,
    )

    with open_reader(db, server) as reader:
        report = build_report(reader, scoring_id=scoring_id, run_id=run_id)
        typer.echo(render_terminal(report, width=width(), color=_color()), nl=False)
        if json_path:
            json_path.write_text(to_json(report))
        if junit:
            junit.write_text(to_junit(report))
        code = ExitCode(report.exit_code)
        if baseline:
            diff = diff_runs(reader, baseline, report.run.run_id)
            typer.echo(render_diff(diff, width=width(), color=_color()), nl=False)
            if diff.regressed and code == ExitCode.OK:
                code = ExitCode.GATE_FAILED
    return code


def emit_traffic(
    db: Path | None,
    server: str | None,
    scoring_id: str,
    json_path: Path | None = None,
    junit: Path | None = None,
) -> ExitCode:
    from tracegrade.report import (
        build_traffic_report,
        render_traffic,
        traffic_to_json,
        traffic_to_junit,
    )

    with open_reader(db, server) as reader:
        report = build_traffic_report(reader, scoring_id)
        typer.echo(render_traffic(report, width=width(), color=_color()), nl=False)
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
