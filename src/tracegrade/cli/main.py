"""Builds the `tracegrade` app from the command modules; nothing else lives here."""

from __future__ import annotations

from typing import Annotated

import typer

from tracegrade.cli import (
    archive,
    db,
    diff,
    export_evalset,
    ingest,
    lint_tools,
    report,
    run,
    runs,
    score,
    serve,
    sql,
)
from tracegrade.cli._help import Command, Group

app = typer.Typer(
    name="tracegrade",
    cls=Group,
    help="Grade LLM agents from their OpenTelemetry traces.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("run", cls=Command)(run.run)
app.command("score", cls=Command)(score.score)
app.command("report", cls=Command)(report.report)
app.command("diff", cls=Command)(diff.diff)
app.command("runs", cls=Command)(runs.runs)
app.command("sql", cls=Command)(sql.sql)
app.command("ingest", cls=Command)(ingest.ingest)
app.command("serve", cls=Command)(serve.serve_command)
app.command("export-evalset", cls=Command)(export_evalset.export_evalset)
app.command("lint-tools", cls=Command)(lint_tools.lint_tools)
app.command("archive", cls=Command)(archive.archive)
app.add_typer(db.app, name="db")


def _print_version(asked: bool) -> None:
    if asked:
        from importlib.metadata import version

        from tracegrade import __version__

        typer.echo(f"tracegrade {__version__} (google-adk {version('google-adk')})")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Grade LLM agents from their OpenTelemetry traces."""


def main() -> None:
    app()
