"""Whether the views stored in a file are this tracegrade's, so an open can use them as they are.

A read-only open cannot replace the file's views, so it used to define every view again as a
temporary one: DuckDB binds each as it is made, most of a read command's start (~0.2 s
quiet, for `tracegrade sql "select 1"`). A writable open now stamps each view it makes with
a digest of the macro and view files (`COMMENT ON VIEW`); a read-only open that finds every
view stamped with its own digest uses the stored ones. `CREATE OR REPLACE` drops a view's
comment, so a file whose views another tracegrade made since fails the check and gets the
temporary views as before. A writable open likewise keeps views stamped with its digest
(unless a migration just ran), where it used to make them all again on every open.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import duckdb

_VIEW = re.compile(r"CREATE OR REPLACE VIEW\s+(\w+)", re.IGNORECASE)


def stamp(connection: duckdb.DuckDBPyConnection, macros: list[Path], views: list[Path]) -> None:
    digest = _digest(macros, views)
    for name in _names(views):
        connection.execute(f"COMMENT ON VIEW {name} IS '{digest}'")  # a name from our files


def is_current(
    connection: duckdb.DuckDBPyConnection, macros: list[Path], views: list[Path]
) -> bool:
    names = _names(views)
    ((stamped,),) = connection.execute(
        "SELECT count(*) FROM duckdb_views() WHERE database_name = current_database() "
        "AND NOT temporary AND list_contains(?, view_name) AND comment = ?",
        [names, _digest(macros, views)],
    ).fetchall()
    return bool(names) and stamped == len(names)


def _names(views: list[Path]) -> list[str]:
    return [name for path in views for name in _VIEW.findall(path.read_text())]


def _digest(macros: list[Path], views: list[Path]) -> str:
    text = "\0".join(f"{path.name}\0{path.read_text()}" for path in [*macros, *views])
    return "tracegrade views " + hashlib.sha256(text.encode()).hexdigest()[:16]
