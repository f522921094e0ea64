"""`tracegrade diff`: what changed between two runs; exit 1 when a case regressed or got
worse beyond a tolerance."""

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
        typer.Option(min=0, help="A judged metric's case score may fall by this much."),
    ] = 0.05,
    as_json: Annotated[
        bool, typer.Option("--json", help="The diff as JSON (every case's category) instead.")
    ] = False,
    db: DbOption = None,
    server: ServerOption = None,
) -> None:
    """Each case in one category: regressed, worse beyond a tolerance, improved, changed,
    unchanged, or in one run only.

    Exit 1 when a case that passed now fails or errors (regressed), or when a case got worse
    beyond a tolerance whatever its verdict (worse): more tool calls, higher latency, cost or
    tokens, or a judged metric's case score down by more than --score-drop or no longer
    evaluated. Anything else exits 0: fixes, verdict changes that are no regression
    (failed → error), changed tool-call sequences, cases in one run only.
    """
    from tracegrade.cli._report import width
    from tracegrade.report import DiffTolerances, diff_runs, diff_to_json, render_diff
    from tracegrade.workspace.store import Store

    tolerances = DiffTolerances(
        latency_pct=latency_pct,
        latency_ms=latency_ms,
        cost_pct=cost_pct,
        tokens_pct=tokens_pct,
        tool_calls=tool_calls,
        score_drop=score_drop,
    )
    with user_errors(), Store(db, server).reader() as reader:
        result = diff_runs(reader, base, new, tolerances)
    if as_json:
        typer.echo(diff_to_json(result), nl=False)
    else:
        typer.echo(render_diff(result, width=width(), color=sys.stdout.isatty()), nl=False)
    raise typer.Exit(int(ExitCode.GATE_FAILED if result.failed else ExitCode.OK))
