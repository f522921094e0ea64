"""The data model's documentation, read from the SQL files' headers.

Each view and table file opens with a block

    -- name: what one row is ...
    --
    -- Columns:
    --   column_a     what it holds
    --                (continued)

`relations()` reads those blocks and the actual columns (names and types) from a live
database, and refuses any column that is documented but missing, or present but
undocumented: docs/data-model.md is generated from this, so docs cannot drift from the SQL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import duckdb

from tracegrade._resources import sql_files

_TITLE = re.compile(r"^-- (\w+): (.*)$")
_COLUMN = re.compile(r"^--   (\w+)\s{2,}(.*)$")
_MORE = re.compile(r"^--\s{4,}(.*)$")


@dataclass(frozen=True)
class Column:
    name: str
    type: str
    doc: str


@dataclass(frozen=True)
class Relation:
    name: str
    kind: str  # view or table
    doc: str
    columns: list[Column]


class UndocumentedSchema(Exception):
    """A column of a view or table is missing from its file's header, or vice versa."""


def relations(connection: duckdb.DuckDBPyConnection) -> list[Relation]:
    found = []
    for kind, folder in (("table", "migrations"), ("view", "views")):
        blocks: dict[str, tuple[str, dict[str, str], Path]] = {}
        for path in sql_files(folder):
            for name, doc, column_docs in _blocks(path):
                # A later migration that adds columns documents just those, under the
                # table's name again: its columns join the first block's.
                first = blocks.setdefault(name, (doc, {}, path))
                first[1].update(column_docs)
        for name, (doc, column_docs, path) in blocks.items():
            found.append(Relation(name, kind, doc, _columns(connection, name, column_docs, path)))
    return found


def _blocks(path: Path) -> list[tuple[str, str, dict[str, str]]]:
    blocks: list[tuple[str, str, dict[str, str]]] = []
    doc_lines: list[str] = []
    columns: dict[str, str] = {}
    last: str | None = None
    for line in path.read_text().splitlines():
        title = _TITLE.match(line)
        if title and title[1] != "Columns":
            doc_lines, columns, last = [title[2]], {}, None
            blocks.append((title[1], "", columns))
        elif (column := _COLUMN.match(line)) and blocks:
            last = column[1]
            columns[last] = column[2]
        elif (more := _MORE.match(line)) and last:
            columns[last] += " " + more[1]
        elif line.startswith("-- ") and blocks and not columns and line != "-- Columns:":
            doc_lines.append(line[3:])
        if blocks and not columns:
            blocks[-1] = (blocks[-1][0], " ".join(doc_lines), columns)
    return blocks


def _columns(
    connection: duckdb.DuckDBPyConnection, name: str, docs: dict[str, str], path: Path
) -> list[Column]:
    described = connection.execute(f"DESCRIBE {name}").fetchall()
    actual = {row[0]: str(row[1]) for row in described}
    missing = [c for c in actual if c not in docs]
    stale = [c for c in docs if c not in actual]
    if missing or stale:
        raise UndocumentedSchema(
            f"{path.name}: {name} columns undocumented: {missing or 'none'}; "
            f"documented but absent: {stale or 'none'}"
        )
    return [Column(c, actual[c], docs[c]) for c in actual]
