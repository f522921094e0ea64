"""`tracegrade sql`: read-only SQL on the database, as a table, CSV or JSON."""

from __future__ import annotations

import csv
import io
import json
import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tracegrade.cli._common import DbOption, ServerOption, sql_errors, user_errors
from tracegrade.terminal_safe import terminal_text

if TYPE_CHECKING:
    from rich.console import OverflowMethod


class Format(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"
    jsonl = "jsonl"


def sql(
    query: Annotated[
        str, typer.Argument(help="One SELECT (the views: turns, tool_calls, trajectories...).")
    ],
    format: Annotated[
        Format,
        typer.Option(
            "--format",
            "-f",
            help="table (cut to the terminal's width, whole when piped), csv (nested values "
            "as JSON), json (one array) or jsonl (an object a line).",
        ),
    ] = Format.table,
    db: DbOption = None,
    server: ServerOption = None,
) -> None:
    """Run a read-only query: statements that write are refused."""
    from tracegrade.store.readonly import read_only_statement
    from tracegrade.workspace.store import Store

    with user_errors():
        read_only_statement(query)
        with Store(db, server).reader() as reader, sql_errors("the query failed"):
            columns, rows = reader.query(query)
    typer.echo(_render(columns, rows, format), nl=False)


def _render(columns: list[str], rows: list[tuple[Any, ...]], format: Format) -> str:
    if format is Format.json:
        # One array, a row a line: valid JSON that still reads (and greps) by row.
        return "[\n" + ",\n".join(map(_json, _objects(columns, rows))) + "\n]\n" if rows else "[]\n"
    if format is Format.jsonl:
        return "".join(_json(row) + "\n" for row in _objects(columns, rows))
    if format is Format.csv:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([_cell(v) for v in row] for row in rows)
        return out.getvalue()
    # Only the table goes to a terminal as it is: the other formats are data for programs.
    cells = [[terminal_text(_cell(v)) for v in row] for row in rows]
    return _table([terminal_text(c) for c in columns], cells, sys.stdout.isatty())


def _objects(columns: list[str], rows: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    return [dict(zip(columns, row, strict=True)) for row in rows]


def _json(value: Any) -> str:
    return json.dumps(value, default=str, ensure_ascii=False)


def _cell(value: Any) -> str:
    """A value as text: nested values (lists, structs, maps) as JSON, NULL as nothing."""
    if value is None:
        return ""
    if isinstance(value, list | tuple | dict):
        return _json(value)
    return str(value)


def _table(columns: list[str], cells: list[list[str]], terminal: bool) -> str:
    # On a terminal the table fits its width and long values are cut; piped (into a file,
    # or `less -S`), every value is whole, so ids can be copied into the next query.
    from rich.console import Console  # here: only a table needs it, not every command's start
    from rich.table import Table
    from rich.text import Text

    table = Table(show_lines=False)
    overflow: OverflowMethod = "ellipsis" if terminal else "ignore"
    for column in columns:
        table.add_column(column, no_wrap=not terminal, overflow=overflow)
    for row in cells:
        table.add_row(*map(Text, row))  # Text: a value like "[b]" is not markup
    width = max(80, Console().width) if terminal else _whole_width(columns, cells)
    out = io.StringIO()
    console = Console(file=out, width=width, no_color=not terminal)
    console.print(table)
    console.print("1 row" if len(cells) == 1 else f"{len(cells)} rows")
    return out.getvalue()


def _whole_width(columns: list[str], cells: list[list[str]]) -> int:
    """The width at which no value is cut: each column as wide as its longest line, plus
    the table's borders and padding (three characters a column, one more at the end)."""
    widths = [
        max([len(name), *(len(line) for row in cells for line in row[i].splitlines())])
        for i, name in enumerate(columns)
    ]
    return max(80, sum(widths) + 3 * len(widths) + 1)
