"""`tracegrade runs`: the eval runs stored in the database."""

from __future__ import annotations

import typer

from tracegrade.cli._common import DbOption, ServerOption, user_errors


def runs(db: DbOption = None, server: ServerOption = None) -> None:
    """List stored eval runs, newest first, with their latest verdicts."""
    from tracegrade.cli._access import open_reader
    from tracegrade.report import list_runs, render_runs

    with user_errors(), open_reader(db, server) as reader:
        text = render_runs(list_runs(reader))
    typer.echo(text, nl=False)
