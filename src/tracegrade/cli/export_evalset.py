"""`tracegrade export-evalset`: chosen traffic turns into an ADK eval set."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tracegrade.cli._common import (
    DbOption,
    ServerOption,
    fail,
    prepare_outputs,
    sql_errors,
    user_errors,
)


def export_evalset(
    out: Annotated[Path, typer.Argument(help="The *.evalset.json file to write.")],
    where: Annotated[
        str, typer.Option(help='SQL condition on the turns view, e.g. "tool_errors > 0".')
    ],
    eval_set_id: Annotated[
        str | None, typer.Option(help="Eval set id (default: the file name).")
    ] = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many sessions.")] = 100,
    db: DbOption = None,
    server: ServerOption = None,
) -> None:
    """Write recorded traffic turns as ADK eval cases: new golden cases from real traffic.

    Each matching turn's session becomes one case, its conversation up to that turn, with
    the tool calls and final response of the time as the expectation: review them.
    """
    from tracegrade.evalset import write_eval_set
    from tracegrade.evalset.from_traffic import cases_from_traffic
    from tracegrade.report.values import plural
    from tracegrade.workspace.store import Store

    prepare_outputs({"OUT": out})
    set_id = eval_set_id or out.name.removesuffix(".json").removesuffix(".evalset")
    with user_errors(), Store(db, server).reader() as reader, sql_errors(f"--where {where!r}"):
        exported = cases_from_traffic(reader, where, set_id, limit)
    for warning in exported.warnings:
        typer.echo(f"tracegrade: {warning}", err=True)
    if not exported.cases:
        raise fail(f"nothing to export: no session matching {where!r} can be replayed (see above)")
    write_eval_set(out, set_id, exported.cases)
    turns = sum(len(case.turns) for case in exported.cases)
    typer.echo(f"{out}: {plural(len(exported.cases), 'case')}, {plural(turns, 'turn')}")
