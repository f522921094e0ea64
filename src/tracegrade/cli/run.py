"""`tracegrade run`: replay eval sets through an agent, score them, report, gate."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

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
    fail,
    judge_options,
    prepare_outputs,
    quiet_agent_logs,
    user_errors,
)
from tracegrade.terminal_safe import terminal_text

if TYPE_CHECKING:
    from tracegrade.harness import RunPlan
    from tracegrade.remote import RemoteDatabase
    from tracegrade.scoring.config_file import LoadedConfig


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
    from tracegrade.cli._report import emit_report, run_baseline
    from tracegrade.report.values import plural
    from tracegrade.scoring import load_scoring_config
    from tracegrade.scoring.config_file import allowing_not_evaluated

    prepare_outputs({"--json": json_path, "--junit": junit, "--html": html})
    if not verbose:
        quiet_agent_logs()
    with user_errors():
        # What can be checked without the agent is, first: its import alone takes seconds.
        criteria = load_scoring_config(config, eval_sets, metrics or [])
        base = run_baseline(db, server if otlp_endpoint else None, baseline, agent, eval_sets)
        if allow_not_evaluated:
            criteria = allowing_not_evaluated(criteria)
        from tracegrade.harness import RunOptions, plan_run
        from tracegrade.scoring.evaluate import evaluate, evaluate_over_otlp
        from tracegrade.scoring.judging import check_judges, judges_resolve

        # Without the agent: a judge only its module registers is recorded as coming from it.
        judges_outside_agent = judges_resolve(criteria.config, criteria.specs)
        options = RunOptions(
            eval_sets=eval_sets,
            agent=agent,
            repeats=repeats,
            parallel=parallel,
            turn_timeout_s=turn_timeout,
            criteria=criteria.raw or {},
            ignore_unknown_keys=ignore_unknown_keys,
            tags=tags or [],
        )
        plan = plan_run(options)
        # After the agent: a judge may live in its package, which loading it puts on the path.
        check_judges(criteria.config, criteria.specs)
        if not judges_outside_agent:
            criteria = _judges_from_agent(criteria, plan)
        remote = _scoring_server(db, server, metrics or []) if otlp_endpoint else None
        if remote is not None:  # it scores: it must know every judge before the first case
            _check_server_judges(remote, criteria.raw)
        for warning in (w for loaded in plan.eval_sets for w in loaded.warnings):
            typer.echo(f"tracegrade: {warning}", err=True)
        for case, reason in plan.not_replayable:
            skipped = terminal_text(f"skipping case '{case.case_id}': {reason}")
            typer.echo(f"tracegrade: {skipped}", err=True)
        judge = judge_options(judge_concurrency, judge_budget_usd, judge_timeout, judge_retries)
        with case_progress(plan.total) as progress:
            if otlp_endpoint and remote is not None:
                evaluation = evaluate_over_otlp(
                    plan, criteria, otlp_endpoint, remote, progress, judge=judge
                )
            else:
                evaluation = evaluate(plan, criteria, db, progress, judge)
        if evaluation.capture.lost:
            typer.echo(
                f"tracegrade: {plural(evaluation.capture.lost, 'span')} "
                f"{'was' if evaluation.capture.lost == 1 else 'were'} lost while recording: "
                "some turns may be incomplete",
                err=True,
            )
        scoring_id = evaluation.scoring["scoring_id"]
        code = emit_report(
            db,
            server if otlp_endpoint else None,
            scoring_id,
            json_path,
            junit,
            base,
            html=html,
            markdown=markdown,
        )
    raise typer.Exit(int(code))


def _judges_from_agent(criteria: LoadedConfig, plan: RunPlan) -> LoadedConfig:
    """The criteria the run records, naming the agent's module among `judge_imports`: a
    later `score --run`, or a server given it, finds the judges it registered again."""
    from tracegrade.harness import agent_source
    from tracegrade.scoring.config_file import with_judge_import

    criteria = with_judge_import(criteria, agent_source(plan.options.agent))
    plan.options = plan.options.model_copy(update={"criteria": criteria.raw or {}})
    return criteria


def _check_server_judges(remote: RemoteDatabase, raw: dict[str, Any] | None) -> None:
    """Refuse the run, before any case, if the server could not resolve its judges."""
    from tracegrade.remote import RemoteError

    try:
        remote.score({"config": raw, "check_judges": True})
    except RemoteError as exc:
        if ": 400 " not in str(exc):  # not refused: unreachable, or no access, said as is
            raise
        imports = (raw or {}).get("tracegrade", {}).get("judge_imports") or ["MODULE"]
        start = " ".join(f"--judge-import {m}" for m in imports)
        reason = str(exc).partition(": 400 ")[2]
        raise fail(
            f"--server {remote.url}: it cannot score this run's judges ({reason}); "
            f"start it with `tracegrade serve ... {start}`"
        ) from None


def _scoring_server(db: Path | None, server: str | None, metrics: list[Path]) -> RemoteDatabase:
    """The `tracegrade serve` the OTLP spans end up in, which will score them."""
    from tracegrade.remote import RemoteDatabase, find_server
    from tracegrade.store import resolve_path

    if metrics:
        raise fail("--metrics: with --otlp-endpoint the server scores, with its own metrics")
    if server:
        return RemoteDatabase(server)
    found = find_server(resolve_path(db))
    if found is None:
        raise fail(
            "--otlp-endpoint: give --server, the URL of the tracegrade serve the spans end "
            "up in (e.g. http://127.0.0.1:4319 with docker compose), so it can score them"
        )
    return RemoteDatabase.for_server(found)
