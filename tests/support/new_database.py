"""A new database for a test: a copy of an empty one made once per process.

Making a database file binds every view as it is created (DuckDB checks each), ~1 s of CPU
on this project's machines, paid by every test that writes spans into a fresh file; a copy
of one made the same way holds the same tables, migrations, views and their stamps, for the
cost of copying ~1 MB. Tests of making a database itself open the path with `connect`.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
from pathlib import Path

from tracegrade.store import connect


def new_database(path: Path) -> Path:
    """`path` as a new, empty database of this tracegrade, unless a file is there already."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(_empty(), path)
    return path


@functools.cache
def _empty() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="tracegrade-empty-"))
    atexit.register(_remove, folder, os.getpid())
    path = folder / "empty.duckdb"
    connect(path).close()
    assert not path.with_name(path.name + ".wal").exists()  # closed whole: one file to copy
    return path


def _remove(folder: Path, owner: int) -> None:
    if os.getpid() == owner:  # a forked child's exit leaves its parent's template alone
        shutil.rmtree(folder, ignore_errors=True)
