"""`tracegrade diff`: what changed between two runs; exit 1 when a case regressed or got
worse beyond a tolerance."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from tracegrade.cli._common import DbOption, ServerOption, fail, user_errors
from tracegrade.exit_codes import ExitCode


def diff(
    base: Annotated[
        str | None,
        typer.Argument(
            help="What to compare against: previous (NEW's last run before it of the same "
            "agent and eval sets), a tag, a run id, a JSON report file (`run --json`), or a "
            "traffic scoring.",
            show_default=False,
        ),
    ] = None,
    new: Annotated[
        str | None,
        typer.Argument(
            help="What to check: a run id, a tag, a JSON report file, or a traffic scoring.",
            show_default=False,
        ),
    ] = None,
    rule: Annotated[
        str | None,
        typer.Option(
            help="Traffic: compare the two latest scorings of this online rule (no ids); "
            "with --window, its last window with the one before.",
            show_default=False,
        ),
    ] = None,
    window: Annotated[
        str | None,
        typer.Option(
            help="With --rule: the window's length (24h, 7d, 90m): the rule's turns that "
            "started in the last one against those of the one before.",
            show_default=False,
        ),
    ] = None,
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
    rate_rise: Annotated[
        float,
        typer.Option(
            min=0, help="Traffic: a share of turns (errored, over a budget) may rise by this much."
        ),
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

    Two traffic scorings (`runs --traffic`; or --rule NAME, its two latest; or --rule NAME
    --window 24h, its last 24h of turns against the 24h before) are compared
    overall and per agent: exit 1 when the share of turns that errored or broke a metric's
    budget rose by more than --rate-rise, a judged metric's mean fell by more than
    --score-drop, or p95 latency or cost per turn rose beyond their tolerances.
    """
    from tracegrade.cli._report import diff_named, traffic_diff, width
    from tracegrade.report import DiffTolerances, diff_to_json, render_diff
    from tracegrade.report.traffic_diff.text import render_traffic_diff

    if (rule is None) == (base is None or new is None) or (rule and base is not None):
        raise fail("give two runs or traffic scorings, or --rule NAME alone")
    if window is not None and rule is None:
        raise fail("--window compares two windows of one online rule: give --rule NAME too")

    tolerances = DiffTolerances(
        latency_pct=latency_pct,
        latency_ms=latency_ms,
        cost_pct=cost_pct,
        tokens_pct=tokens_pct,
        tool_calls=tool_calls,
        score_drop=score_drop,
        rate_rise=rate_rise,
    )
    color = sys.stdout.isatty()
    with user_errors():
        traffic = traffic_diff(db, server, rule, base, new, tolerances, window)
        if traffic is not None:
            failed = traffic.failed
            text = render_traffic_diff(traffic, width=width(), color=color)
            document = traffic.model_dump_json(indent=2) + "\n"
        else:
            runs = diff_named(db, server, str(base), str(new), tolerances)
            failed = runs.failed
            text = render_diff(runs, width=width(), color=color)
            document = diff_to_json(runs)
    typer.echo(document if as_json else text, nl=False)
    raise typer.Exit(int(ExitCode.GATE_FAILED if failed else ExitCode.OK))
