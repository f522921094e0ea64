"""Builds the `tracegrade` app from the command modules; nothing else lives here."""

from __future__ import annotations

import typer

from tracegrade.cli import db, ingest

app = typer.Typer(
    name="tracegrade",
    help="Grade LLM agents from their OpenTelemetry traces.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("ingest")(ingest.ingest)
app.add_typer(db.app, name="db")


def main() -> None:
    app()
