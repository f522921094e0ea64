"""`tracegrade sql`: read-only SQL on the database, as a table, CSV or JSON."""

from __future__ import annotations

import csv
import io
import json
import sys
from enum import StrEnum
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from tracegrade.cli._common import DbOption, ServerOption, user_errors


class Format(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"


def sql(
    query: Annotated[
        str, typer.Argument(help="One SELECT (the views: turns, tool_calls, trajectories...).")
    ],
    format: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.table,
    db: DbOption = None,
    server: ServerOption = None,
) -> None:
    """Run a read-only query: statements that write are refused."""
    from tracegrade.cli._access import open_reader
    from tracegrade.store.readonly import read_only_statement

    with user_errors():
        read_only_statement(query)
        with open_reader(db, server) as reader:
            columns, rows = reader.query(query)
    typer.echo(_render(columns, rows, format), nl=False)


def _render(columns: list[str], rows: list[tuple[Any, ...]], format: Format) -> str:
    if format is Format.json:
        return "".join(
            json.dumps(dict(zip(columns, row, strict=True)), default=str) + "\n" for row in rows
        )
    if format is Format.csv:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(rows)
        return out.getvalue()
    table = Table(*columns, show_lines=False)
    for row in rows:
        table.add_row(*("" if v is None else str(v) for v in row))
    out = io.StringIO()
    console = Console(file=out, width=max(80, Console().width), no_color=not sys.stdout.isatty())
    console.print(table)
    console.print(f"{len(rows)} rows")
    return out.getvalue()
