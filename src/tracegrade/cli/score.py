"""`tracegrade score`: score stored spans again, or a sample of traffic, without any agent."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Annotated

import typer

from tracegrade.cli._common import DbOption, fail, user_errors

_DURATION = re.compile(r"^(\d+(?:\.\d+)?)([smhd])$")
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def score(
    run: Annotated[
        str | None, typer.Option(help="The eval run to score (default: the latest).")
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(help="Criteria file (default: the criteria the run was made with)."),
    ] = None,
    since: Annotated[
        str | None, typer.Option(help="Traffic: turns of the last 30m, 24h, 7d...")
    ] = None,
    sample: Annotated[
        float | None,
        typer.Option(min=0.0, max=1.0, help="Traffic: a share of turns, decided by trace id."),
    ] = None,
    where: Annotated[
        str | None, typer.Option(help="Traffic: a SQL condition on the turns view.")
    ] = None,
    metrics: Annotated[list[Path], typer.Option(help="A folder of extra metric .sql files.")] = [],  # noqa: B006
    db: DbOption = None,
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Write the JSON report here.")
    ] = None,
    junit: Annotated[Path | None, typer.Option(help="Write JUnit XML here.")] = None,
) -> None:
    """Score stored turns with the given criteria and gate, as `run` would.

    Without traffic options it scores an eval run again (the latest, or --run). With
    --since, --sample or --where it scores production traffic (turns of no eval run) with
    the metrics that need no expected answers: budgets, efficiency, cost, errors.
    """
    from tracegrade.cli._report import emit_report, emit_traffic
    from tracegrade.scoring import Selection, load_scoring_config
    from tracegrade.scoring.stored import latest_run_id, run_criteria, score_stored
    from tracegrade.store import resolve_path

    traffic = since is not None or sample is not None or where is not None
    if traffic and run:
        raise fail("--run scores an eval run; --since/--sample/--where score traffic: choose one")
    with user_errors():
        path = resolve_path(db)
        run_id = None if traffic else (run or latest_run_id(path))
        raw = None if (config or traffic) else run_criteria(path, run_id)
        criteria = load_scoring_config(config, (), metrics) if raw is None else None
        selection = Selection(run_id=run_id, since=_duration(since), sample=sample, where=where)
        result = score_stored(path, selection, criteria, raw, metrics)
        if traffic:
            code = emit_traffic(path, result.scoring_id)
        else:
            code = emit_report(path, result.scoring_id, json_path, junit)
    raise typer.Exit(int(code))


def _duration(text: str | None) -> dt.timedelta | None:
    if text is None:
        return None
    match = _DURATION.match(text.strip())
    if not match:
        raise fail(f"--since {text!r}: give a number and a unit, e.g. 30m, 24h or 7d")
    return dt.timedelta(seconds=float(match[1]) * _UNIT_S[match[2]])
