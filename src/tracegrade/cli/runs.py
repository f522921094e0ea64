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
    traffic: Annotated[
        bool,
        typer.Option(
            "--traffic",
            help="The scorings of production traffic instead (`score --since`, online rules; "
            "the newest 100 unless --limit): give one to `report` or two to `diff`.",
        ),
    ] = False,
    db: DbOption = None,
    server: ServerOption = None,
) -> None:
    """List stored eval runs, newest first, with their latest verdicts (--traffic: the
    scorings of traffic, newest first)."""
    from tracegrade.report import (
        list_runs,
        list_traffic_scorings,
        render_runs,
        render_traffic_scorings,
    )
    from tracegrade.workspace.store import Store

    with user_errors(), Store(db, server).reader() as reader:
        if traffic:
            scorings = list_traffic_scorings(reader, limit)
            text, items = render_traffic_scorings(scorings), [s.model_dump() for s in scorings]
        else:
            runs_found = list_runs(reader, limit)
            text, items = render_runs(runs_found), [r.model_dump() for r in runs_found]
    if as_json:
        typer.echo(json.dumps(items, indent=2))
    else:
        typer.echo(text, nl=False)
