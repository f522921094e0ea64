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
        float, typer.Option(help="Latency increase tolerated, in percent.")
    ] = 20.0,
    latency_ms: Annotated[
        float, typer.Option(help="...and in milliseconds: smaller rises are jitter.")
    ] = 50.0,
    cost_pct: Annotated[float, typer.Option(help="Cost increase tolerated, in percent.")] = 10.0,
    tokens_pct: Annotated[float, typer.Option(help="Token increase tolerated, in percent.")] = 10.0,
    score_drop: Annotated[
        float, typer.Option(help="A judged metric's case score may fall by this much unreported.")
    ] = 0.05,
    db: DbOption = None,
    server: ServerOption = None,
) -> None:
    """Per case: pass→fail, more tool calls, latency/cost/tokens up, judged metrics' scores
    down, trajectory changes."""
    from tracegrade.cli._access import open_reader
    from tracegrade.report import DiffTolerances, diff_runs, render_diff

    tolerances = DiffTolerances(
        latency_pct=latency_pct,
        latency_ms=latency_ms,
        cost_pct=cost_pct,
        tokens_pct=tokens_pct,
        score_drop=score_drop,
    )
    with user_errors(), open_reader(db, server) as reader:
        result = diff_runs(reader, base, new, tolerances)
    typer.echo(render_diff(result, color=sys.stdout.isatty()), nl=False)
    raise typer.Exit(int(ExitCode.GATE_FAILED if result.regressed else ExitCode.OK))
