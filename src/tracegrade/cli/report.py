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
) -> None:
    """Print a run's (or a traffic scoring's) summary again; exit with the code its gate
    decided."""
    from tracegrade.cli._report import emit_report, emit_traffic, is_traffic_scoring

    prepare_outputs({"--json": json_path, "--junit": junit, "--html": html})
    with user_errors():
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
