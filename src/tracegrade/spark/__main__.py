"""`python -m tracegrade.spark score ...` (or `spark-submit` with this module's file)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from tracegrade.errors import TracegradeError
from tracegrade.exit_codes import ExitCode

app = typer.Typer(
    name="tracegrade.spark",
    help="Score the Parquet archive on Spark with tracegrade's SQL.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _group() -> None:
    """Score the Parquet archive on Spark with tracegrade's SQL."""


@app.command()
def score(
    archive: Annotated[str, typer.Option(help="The archive's root (a path or URL Spark reads).")],
    out: Annotated[Path, typer.Option(help="Folder for scores.parquet and case_results.parquet.")],
    run: Annotated[str | None, typer.Option(help="The eval run to score.")] = None,
    since: Annotated[
        str | None, typer.Option(help="Traffic: turns of the last 30m, 24h, 7d...")
    ] = None,
    sample: Annotated[
        float | None,
        typer.Option(min=0.0, max=1.0, help="Traffic: a share of turns, decided by trace id."),
    ] = None,
    config: Annotated[Path | None, typer.Option(help="Criteria file (default: the run's).")] = None,
    partitions: Annotated[int, typer.Option(min=1, help="Tasks the traces are split over.")] = 16,
    master: Annotated[
        str | None, typer.Option(help="Spark master URL (default: spark-submit's, else local).")
    ] = None,
) -> None:
    """Score an eval run (--run) or traffic (--since, --sample) from the archive.

    Prints a JSON line (the rows written, the verdict, the exit code) and exits with the
    code `tracegrade score` gives for the same turns: 0 passed, 1 failed, 3 errors over
    the limit, 4 not evaluated, 5 incomplete, 2 bad input."""
    from pyspark.sql import SparkSession

    from tracegrade.scoring.selection import parse_since
    from tracegrade.spark import SparkScoring, score_to
    from tracegrade.workspace.requests import ScoreRequest, load_criteria

    try:
        request = ScoreRequest(
            run_id=run,
            criteria=load_criteria(config) if config else None,
            since_s=parse_since(since).total_seconds() if since is not None else None,
            sample=sample,
        )
        scoring = SparkScoring.from_request(request, partitions)
        builder = SparkSession.builder.appName("tracegrade-score")
        if master:
            builder = builder.master(master)
        spark = builder.config("spark.sql.session.timeZone", "UTC").getOrCreate()
        summary = score_to(spark, archive, scoring, out)
    except TracegradeError as exc:
        typer.echo(f"tracegrade.spark: {exc}", err=True)
        raise typer.Exit(int(ExitCode.USAGE_ERROR)) from None
    typer.echo(json.dumps({"out": str(out), **summary}))
    if summary["exit_code"] != ExitCode.OK:
        typer.echo(f"tracegrade.spark: the gate says {summary['verdict']}", err=True)
    raise typer.Exit(summary["exit_code"])


if __name__ == "__main__":
    app()
