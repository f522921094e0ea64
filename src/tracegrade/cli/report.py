"""`tracegrade report`: show (and write) the report of a stored run's latest scoring."""

from __future__ import annotations

from typing import Annotated

import typer

from tracegrade.cli._common import (
    BaselineOption,
    DbOption,
    HtmlOption,
    JsonOption,
    JunitOption,
    MarkdownOption,
    ServerOption,
    fail,
    prepare_outputs,
    user_errors,
)


def report(
    run: Annotated[
        str | None,
        typer.Argument(
            help="Run id; `latest` (the default) is the latest scored run. Or a traffic "
            "scoring's id (`tracegrade runs --traffic`)."
        ),
    ] = None,
    db: DbOption = None,
    server: ServerOption = None,
    json_path: JsonOption = None,
    junit: JunitOption = None,
    html: HtmlOption = None,
    markdown: MarkdownOption = False,
    baseline: BaselineOption = None,
    rule: Annotated[
        str | None,
        typer.Option(
            help="Traffic: with --window, the turns of this online rule that started in the "
            "last window, as one traffic report (no id).",
            show_default=False,
        ),
    ] = None,
    window: Annotated[
        str | None,
        typer.Option(help="With --rule: the window's length (24h, 7d, 90m).", show_default=False),
    ] = None,
) -> None:
    """Print a run's (or a traffic scoring's) summary again; exit with the code its gate
    decided."""
    from tracegrade.cli._report import emit_report, emit_traffic, is_traffic_scoring

    prepare_outputs({"--json": json_path, "--junit": junit, "--html": html})
    if rule is not None and window is None:
        raise fail(f"--rule {rule} needs --window (24h, 7d, 90m): the rule's last window")
    if window is not None and rule is None:
        raise fail(f"--window {window} needs --rule NAME: the window of which online rule")
    if rule is not None and run is not None:
        raise fail(f"--rule {rule} --window {window} is a rule's window: give no run or scoring id")
    with user_errors():
        if rule is not None and window is not None:
            if baseline or html:
                raise fail("a rule's window has no --baseline or --html: compare windows with "
                           f"`tracegrade diff --rule {rule} --window {window}`")  # fmt: skip
            from tracegrade.report.traffic.window import RuleWindow  # not for a run's report

            last = RuleWindow.last(rule, window)
            code = emit_traffic(db, server, last, json_path, junit, markdown=markdown)
            raise typer.Exit(int(code))
        if run not in (None, "latest") and is_traffic_scoring(db, server, run):
            if baseline:
                raise fail(
                    f"--baseline {baseline}: a traffic scoring is compared with "
                    f"`tracegrade diff OTHER {run}`"
                )
            code = emit_traffic(db, server, run, json_path, junit, html, markdown=markdown)
            raise typer.Exit(int(code))
        code = emit_report(
            db,
            server,
            json_path=json_path,
            junit=junit,
            baseline=baseline,
            run_id=None if run == "latest" else run,
            html=html,
            markdown=markdown,
        )
    raise typer.Exit(int(code))
