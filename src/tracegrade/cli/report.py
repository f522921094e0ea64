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
    prepare_outputs,
    user_errors,
)


def report(
    run: Annotated[
        str | None,
        typer.Argument(help="Run id; `latest` (the default) is the latest scored run."),
    ] = None,
    db: DbOption = None,
    server: ServerOption = None,
    json_path: JsonOption = None,
    junit: JunitOption = None,
    html: HtmlOption = None,
    markdown: MarkdownOption = False,
    baseline: BaselineOption = None,
) -> None:
    """Print a run's summary again; exit with the code its gate decided."""
    from tracegrade.cli._report import emit_report

    prepare_outputs({"--json": json_path, "--junit": junit, "--html": html})
    with user_errors():
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
