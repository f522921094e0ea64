"""`tracegrade runs`: the eval runs stored in the database."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from tracegrade.cli._common import DbOption, ServerOption, user_errors


def runs(
    limit: Annotated[
        int | None, typer.Option(min=1, help="Only the newest N runs.", show_default=False)
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="A JSON array (one object a run) instead of a table.")
    ] = False,
    db: DbOption = None,
    server: ServerOption = None,
) -> None:
    """List stored eval runs, newest first, with their latest verdicts."""
    from tracegrade.report import list_runs, render_runs
    from tracegrade.workspace.store import Store

    with user_errors(), Store(db, server).reader() as reader:
        found = list_runs(reader, limit)
    if as_json:
        typer.echo(json.dumps([run.model_dump() for run in found], indent=2))
    else:
        typer.echo(render_runs(found), nl=False)
