"""`tracegrade report`: show (and write) the report of a stored run's latest scoring."""

from __future__ import annotations

from typing import Annotated

import typer

from tracegrade.cli._common import DbOption, JsonOption, JunitOption, ServerOption, user_errors


def report(
    run: Annotated[
        str | None, typer.Argument(help="Run id (default: the latest scored run).")
    ] = None,
    db: DbOption = None,
    server: ServerOption = None,
    json_path: JsonOption = None,
    junit: JunitOption = None,
) -> None:
    """Print a run's summary again; exit with the code its gate decided."""
    from tracegrade.cli._report import emit_report

    with user_errors():
        code = emit_report(db, server, json_path=json_path, junit=junit, run_id=run)
    raise typer.Exit(int(code))
