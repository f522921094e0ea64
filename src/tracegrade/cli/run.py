"""`tracegrade run`: replay eval sets through an agent, score them, report, gate."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tracegrade.cli._common import (
    BaselineOption,
    DbOption,
    HtmlOption,
    JsonOption,
    JudgeBudgetOption,
    JudgeConcurrencyOption,
    JudgeRetriesOption,
    JudgeTimeoutOption,
    JunitOption,
    MarkdownOption,
    MetricsOption,
    ServerOption,
    TagOption,
    judge_options,
    prepare_outputs,
    quiet_agent_logs,
    user_errors,
)
from tracegrade.terminal_safe import terminal_text


def run(
    eval_sets: Annotated[
        list[str],
        typer.Argument(help="Eval-set files or folders; file.json:case_a,case_b selects cases."),
    ],
    agent: Annotated[str, typer.Option(help="package.module:attr, or a folder holding agent.py.")],
    config: Annotated[
        Path | None,
        typer.Option(help="Criteria file (default: test_config.json beside the eval set)."),
    ] = None,
    repeats: Annotated[int, typer.Option(min=1, help="Run each case this many times.")] = 1,
    parallel: Annotated[int, typer.Option(min=1, help="Cases to run at once.")] = 1,
    metrics: MetricsOption = None,
    db: DbOption = None,
    otlp_endpoint: Annotated[
        str | None,
        typer.Option(
            help="Send the spans over OTLP/HTTP to this Collector or server (e.g. "
            "http://127.0.0.1:4318) instead of writing them; the server then scores them."
        ),
    ] = None,
    server: ServerOption = None,
    json_path: JsonOption = None,
    junit: JunitOption = None,
    html: HtmlOption = None,
    markdown: MarkdownOption = False,
    baseline: BaselineOption = None,
    tags: TagOption = None,
    turn_timeout: Annotated[
        float, typer.Option(help="Seconds before a turn counts as hung.")
    ] = 600.0,
    ignore_unknown_keys: Annotated[
        bool,
        typer.Option(
            "--ignore-unknown-keys",
            help="Load eval sets holding keys ADK refuses (e.g. expected_tool_use inside an "
            "invocation) without those keys; each file says which.",
        ),
    ] = False,
    allow_not_evaluated: Annotated[
        bool,
        typer.Option(
            "--allow-not-evaluated",
            help="A case no criterion could evaluate does not fail the gate (exit 4).",
        ),
    ] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Show the agent's own logs.")
    ] = False,
    judge_concurrency: JudgeConcurrencyOption = None,
    judge_budget_usd: JudgeBudgetOption = None,
    judge_timeout: JudgeTimeoutOption = None,
    judge_retries: JudgeRetriesOption = None,
) -> None:
    """Replay eval sets through the agent, score every turn, print the summary, gate.

    Exit codes: 0 passed, 1 quality gate failed, 2 usage or input error, 3 too many
    errors (agent, model or tool crashed), 4 cases not evaluated, 130 interrupted.
    """
    from tracegrade.cli._progress import case_progress
    from tracegrade.cli._report import emit_report
    from tracegrade.report.values import plural
    from tracegrade.workspace.evaluation import prepare_eval, run_prepared
    from tracegrade.workspace.requests import EvalRequest
    from tracegrade.workspace.store import Store

    prepare_outputs({"--json": json_path, "--junit": junit, "--html": html})
    if not verbose:
        quiet_agent_logs()
    with user_errors():
        request = EvalRequest(
            eval_sets=tuple(eval_sets),
            agent=agent,
            config=config,
            metric_dirs=tuple(metrics or ()),
            repeats=repeats,
            parallel=parallel,
            turn_timeout_s=turn_timeout,
            ignore_unknown_keys=ignore_unknown_keys,
            allow_not_evaluated=allow_not_evaluated,
            judge=judge_options(judge_concurrency, judge_budget_usd, judge_timeout, judge_retries),
            otlp_endpoint=otlp_endpoint,
            baseline=baseline,
            tags=tuple(tags or ()),
        )
        # Over OTLP the server the spans end up in holds the store; else the file does.
        store = Store(db, server if otlp_endpoint else None)
        prepared = prepare_eval(request, store)  # everything checked before the first case
        for warning in prepared.warnings:
            typer.echo(f"tracegrade: {warning}", err=True)
        for skipped in prepared.not_replayable:
            line = terminal_text(f"skipping case '{skipped.case_id}': {skipped.reason}")
            typer.echo(f"tracegrade: {line}", err=True)
        with case_progress(prepared.plan.total) as progress:
            evaluation = run_prepared(prepared, progress)
        if evaluation.spans_lost:
            typer.echo(
                f"tracegrade: {plural(evaluation.spans_lost, 'span')} "
                f"{'was' if evaluation.spans_lost == 1 else 'were'} lost while recording: "
                "some turns may be incomplete",
                err=True,
            )
        code = emit_report(
            db,
            store.server,
            evaluation.scoring_id,
            json_path,
            junit,
            prepared.baseline,
            html=html,
            markdown=markdown,
        )
    raise typer.Exit(int(code))
