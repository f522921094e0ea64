"""`tracegrade score`: score stored spans again, or a sample of traffic, without any agent."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tracegrade.cli._common import (
    HtmlOption,
    JsonOption,
    JudgeBudgetOption,
    JudgeConcurrencyOption,
    JudgeRetriesOption,
    JudgeTimeoutOption,
    JunitOption,
    MetricsOption,
    ServerOption,
    judge_options,
    prepare_outputs,
    sql_errors,
    user_errors,
)
from tracegrade.errors import ConfigError

if TYPE_CHECKING:
    from tracegrade.exit_codes import ExitCode
    from tracegrade.workspace.results import ScoreResult
    from tracegrade.workspace.store import Store


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
    evalset: Annotated[
        Path | None,
        typer.Option(
            "--evalset",
            help="An ADK eval-set file: score the stored sessions no tracegrade run made "
            "(adk eval, another harness, production) that match its cases by their user "
            "messages in order, as `run` would score them. Criteria: --config, else the "
            "test_config.json beside it.",
        ),
    ] = None,
    metrics: MetricsOption = None,
    db: Annotated[
        list[Path] | None,
        typer.Option(
            "--db",
            help="DuckDB file (default: $TRACEGRADE_DB, else ./tracegrade.duckdb). Give one "
            "per shard to score their spans together; the first stores the scores.",
            show_default=False,
        ),
    ] = None,
    server: ServerOption = None,
    json_path: JsonOption = None,
    junit: JunitOption = None,
    judge_concurrency: JudgeConcurrencyOption = None,
    judge_budget_usd: JudgeBudgetOption = None,
    judge_timeout: JudgeTimeoutOption = None,
    judge_retries: JudgeRetriesOption = None,
    html: HtmlOption = None,
    judge_import: Annotated[
        list[str] | None,
        typer.Option(
            "--judge-import",
            help="Module (dotted name or .py file) to import first, for judges it registers "
            "that the criteria do not name (e.g. a run made before runs recorded them). A "
            "server imports only its own: `serve --judge-import`.",
        ),
    ] = None,
) -> None:
    """Score stored turns with the given criteria and gate, as `run` would.

    Without traffic options it scores an eval run again (the latest, or --run). With
    --since, --sample or --where it scores production traffic (turns of no eval run) with
    the metrics that need no expected answers: budgets, efficiency, cost, errors. While
    `tracegrade serve` holds the database, the server does the scoring. Several --db
    (shards, whose spans were routed by trace id) are read as one database.

    With --evalset FILE it scores the sessions of no eval run whose users' messages are a
    case's, each matching session a repeat of that case, and lists the cases and sessions
    that did not match (docs/score-evalset.md).

    Traffic options that select no stored turn (a quiet window, a small --sample) print one
    line saying so and exit 6: nothing was scored, nothing is wrong with the options.
    """
    from tracegrade.cli._report import emit_report, emit_traffic
    from tracegrade.scoring.selection import parse_since
    from tracegrade.workspace.requests import ScoreRequest, load_criteria
    from tracegrade.workspace.store import Store

    prepare_outputs({"--json": json_path, "--junit": junit, "--html": html})
    with user_errors():
        if judge_import:
            from tracegrade.scoring.judging.resolve import import_judge_modules

            import_judge_modules(judge_import)
        if evalset is not None and (junit or html):
            raise ConfigError(
                "--evalset: its report is text and --json; --junit and --html are not written"
            )
        request = ScoreRequest(
            run_id=run,
            evalset=evalset,
            criteria=load_criteria(config, (), metrics or ()) if config else None,
            metric_dirs=tuple(metrics or ()),
            judge=judge_options(judge_concurrency, judge_budget_usd, judge_timeout, judge_retries),
            since_s=parse_since(since).total_seconds() if since is not None else None,
            sample=sample,
            where=where,
        )
        first, shards = (db[0], db[1:]) if db else (None, [])
        store = Store(first, server, shards)
        with store.scoring(request.metric_dirs) as target, _where_errors(where):
            summary = target.score(request)
        if summary.matching is not None:
            code = _emit_matched(store, summary, json_path)
        elif summary.run_id is None:
            code = emit_traffic(first, server, summary.scoring_id, json_path, junit, html, shards)
        else:
            code = emit_report(
                first, server, summary.scoring_id, json_path, junit, html=html, shards=shards
            )
    raise typer.Exit(int(code))


def _emit_matched(store: Store, summary: ScoreResult, json_path: Path | None) -> ExitCode:
    """A `--evalset` scoring's report: each case, then what did not match."""
    import json

    from tracegrade.report.matched import matched_cases, matched_document, render_matched

    assert summary.matching is not None
    with store.reader() as reader:
        cases = matched_cases(reader, summary.scoring_id)
    document = matched_document(
        summary.matching.model_dump(mode="json"), summary.model_dump(mode="json"), cases
    )
    typer.echo(render_matched(document), nl=False)
    if json_path:
        json_path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return summary.exit_code


def _where_errors(where: str | None) -> AbstractContextManager[None]:
    # Only the user's condition can make scoring's SQL fail as it runs; anything else is a bug.
    return sql_errors(f"--where {where!r}") if where is not None else nullcontext()
