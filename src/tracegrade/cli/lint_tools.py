"""`tracegrade lint-tools`: audit tool definitions, an agent's or the stored ones."""

from __future__ import annotations

from typing import Annotated

import typer

from tracegrade.cli._common import DbOption, ServerOption, user_errors
from tracegrade.exit_codes import ExitCode
from tracegrade.terminal_safe import terminal_text


def lint_tools(
    agent: Annotated[
        str | None,
        typer.Argument(
            help="`package.module:attr` or an agent folder, read without running it; "
            "without it, the tools stored in the database.",
            show_default=False,
        ),
    ] = None,
    db: DbOption = None,
    server: ServerOption = None,
) -> None:
    """Audit tool names, descriptions and parameter schemas: one line per finding (severity,
    agent, tool, parameter, rule); exit 1 when any finding is an error. Rules:
    docs/metrics.md#lint-tools."""
    from tracegrade.report.values import plural
    from tracegrade.scoring.tool_lint import agent_definitions, lint, stored_definitions

    with user_errors():
        if agent is not None:
            definitions = agent_definitions(agent)
        else:
            from tracegrade.workspace.store import Store

            with Store(db, server).reader() as reader:
                definitions = stored_definitions(reader)
    findings = lint(definitions)
    for finding in findings:
        typer.echo(terminal_text(finding.line()))  # tool names and descriptions are data
    errors = sum(f.severity == "error" for f in findings)
    tools = sum(len(t) for t in definitions.values())
    counts = [
        plural(tools, "tool"),
        plural(errors, "error"),
        plural(len(findings) - errors, "warning"),
    ]
    typer.echo(", ".join(counts), err=True)
    if errors:
        raise typer.Exit(int(ExitCode.GATE_FAILED))
