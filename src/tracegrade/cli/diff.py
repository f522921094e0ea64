"""`tracegrade diff`: what changed between two runs; exit 1 on a regression."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from tracegrade.cli._common import DbOption, ServerOption, user_errors
from tracegrade.exit_codes import ExitCode


def diff(
    base: Annotated[str, typer.Argument(help="The run to compare against.")],
    new: Annotated[str, typer.Argument(help="The run to check.")],
    latency_pct: Annotated[
        float, typer.Option(min=0, help="Latency increase tolerated, in percent.")
    ] = 20.0,
    latency_ms: Annotated[
        float, typer.Option(min=0, help="...and in milliseconds: smaller rises are jitter.")
    ] = 50.0,
    cost_pct: Annotated[
        float, typer.Option(min=0, help="Cost increase tolerated, in percent.")
    ] = 10.0,
    tokens_pct: Annotated[
        float, typer.Option(min=0, help="Token increase tolerated, in percent.")
    ] = 10.0,
    tool_calls: Annotated[
        float, typer.Option(min=0, help="More tool calls per repeat tolerated.")
    ] = 0.0,
    score_drop: Annotated[
        float,
        typer.Option(min=0, help="A judged metric's case score may fall by this much unreported."),
    ] = 0.05,
    db: DbOption = None,
    server: ServerOption = None,
) -> None:
    """Per case: pass→fail, more tool calls, latency/cost/tokens up, judged metrics' scores
    down, trajectory changes.

    A case that passed and now does not is a regression; so is one that got worse beyond a
    tolerance (tool calls, latency, cost, tokens). Either exits 1. Trajectory changes and
    judged scores that fell are shown, and do not fail.
    """
    from tracegrade.cli._access import open_reader
    from tracegrade.cli._report import width
    from tracegrade.report import DiffTolerances, diff_runs, render_diff

    tolerances = DiffTolerances(
        latency_pct=latency_pct,
        latency_ms=latency_ms,
        cost_pct=cost_pct,
        tokens_pct=tokens_pct,
        tool_calls=tool_calls,
        score_drop=score_drop,
    )
    with user_errors(), open_reader(db, server) as reader:
        result = diff_runs(reader, base, new, tolerances)
    typer.echo(render_diff(result, width=width(), color=sys.stdout.isatty()), nl=False)
    raise typer.Exit(int(ExitCode.GATE_FAILED if result.regressed else ExitCode.OK))
