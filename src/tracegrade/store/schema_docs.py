"""The data model's documentation, read from the SQL files' headers.

Each view and table file opens with a block (a file may hold several, one per table)

    -- name: what one row is ...
    --
    -- Columns:
    --   column_a     what it holds
    --                (continued)

`relations()` reads those blocks and the actual columns (names and types) from a live
database, and refuses any column that is documented but missing, or present but
undocumented: docs/data-model.md is generated from this, so docs cannot drift from the SQL.
`document()` does the same for any tables and SQL files (the scorers' input tables, whose
files live in queries/scoring/). A block whose table holds every column of another says so
on its columns line, `-- Columns: every column of turns, and`, and documents only its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from tracegrade._resources import sql_files

_TITLE = re.compile(r"^-- (\w+): (.*)$")
_COLUMN = re.compile(r"^--   (\w+)\s{2,}(.*)$")
_MORE = re.compile(r"^--\s{4,}(.*)$")
_EXTENDS = re.compile(r"^-- Columns: every column of (\w+), and$")


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
    extends: str | None = None
    """The relation whose every column this one also holds (not listed in `columns`)."""


class UndocumentedSchema(Exception):
    """A column of a view or table is missing from its file's header, or vice versa."""


def relations(connection: duckdb.DuckDBPyConnection) -> list[Relation]:
    """Every table (queries/migrations/) and view (queries/views/), documented."""
    return [
        *document(connection, "table", sql_files("migrations")),
        *document(connection, "view", sql_files("views")),
    ]


def document(
    connection: duckdb.DuckDBPyConnection, kind: str, paths: Iterable[Path]
) -> list[Relation]:
    """The relations the header blocks of `paths` document, checked against `connection`."""
    blocks: dict[str, tuple[_Block, Path]] = {}
    for path in paths:
        for block in header_blocks(path):
            # A later migration that adds columns documents just those, under the
            # table's name again: its columns join the first block's.
            first, _ = blocks.setdefault(block.name, (block, path))
            if first is not block:
                first.columns.update(block.columns)
    found = []
    for name, (block, path) in blocks.items():
        columns = _columns(connection, name, block, path)
        found.append(Relation(name, kind, " ".join(block.doc), columns, block.extends))
    return found


@dataclass
class _Block:
    name: str
    doc: list[str]
    columns: dict[str, str] = field(default_factory=dict)
    extends: str | None = None
    in_columns: bool = False


def header_blocks(path: Path) -> list[_Block]:
    """The `-- name: ...` blocks of a SQL file. A block ends at the first line that is not a
    comment, so comments inside the SQL that follows are never read as documentation."""
    blocks: list[_Block] = []
    block: _Block | None = None
    last: str | None = None
    for line in path.read_text().splitlines():
        title = _TITLE.match(line)
        if not line.startswith("--"):
            block, last = None, None
        elif title and title[1] != "Columns":
            block, last = _Block(title[1], [title[2]]), None
            blocks.append(block)
        elif block is None:
            continue
        elif line == "-- Columns:" or (extends := _EXTENDS.match(line)):
            block.in_columns = True
            block.extends = extends[1] if line != "-- Columns:" and extends else None
        elif block.in_columns and (column := _COLUMN.match(line)):
            last = column[1]
            block.columns[last] = column[2]
        elif block.in_columns and last and (more := _MORE.match(line)):
            block.columns[last] += " " + more[1]
        elif not block.in_columns and line.startswith("-- "):
            block.doc.append(line[3:])
    return blocks


def _columns(
    connection: duckdb.DuckDBPyConnection, name: str, block: _Block, path: Path
) -> list[Column]:
    actual = {row[0]: str(row[1]) for row in connection.execute(f"DESCRIBE {name}").fetchall()}
    inherited = set()
    if block.extends:
        inherited = {row[0] for row in connection.execute(f"DESCRIBE {block.extends}").fetchall()}
    docs = block.columns
    missing = [c for c in actual if c not in docs and c not in inherited]
    stale = [c for c in docs if c not in actual]
    if missing or stale:
        raise UndocumentedSchema(
            f"{path.name}: {name} columns undocumented: {missing or 'none'}; "
            f"documented but absent: {stale or 'none'}"
        )
    return [Column(c, actual[c], docs[c]) for c in actual if c in docs]
