"""Builds the `tracegrade` app from the command modules; nothing else lives here."""

from __future__ import annotations

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

app = typer.Typer(
    name="tracegrade",
    help="Grade LLM agents from their OpenTelemetry traces.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("run")(run.run)
app.command("score")(score.score)
app.command("report")(report.report)
app.command("diff")(diff.diff)
app.command("runs")(runs.runs)
app.command("sql")(sql.sql)
app.command("ingest")(ingest.ingest)
app.command("serve")(serve.serve_command)
app.command("export-evalset")(export_evalset.export_evalset)
app.command("lint-tools")(lint_tools.lint_tools)
app.command("archive")(archive.archive)
app.add_typer(db.app, name="db")


def main() -> None:
    app()
