"""The archive's files on disk: publishing a committed batch and recovering after a crash.

A batch's file is written under `<root>/_tmp/<shard>/`, fsynced, then recorded in
`archive_manifest` in the transaction that deletes its spans from the hot table, and only
then renamed to its place under `shard=`. So a published file always has a committed
manifest row, and after a crash `recover()` finishes what the crash interrupted: a
committed file still at its temporary path is renamed into place, and a temporary file no
manifest row names is deleted (its spans are still in the hot table).

Tested on local paths only: the rename is what makes publishing atomic, and object stores
have none (an object store would need the copy-then-delete variant; not built).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import duckdb

from tracegrade.errors import ArchiveError
from tracegrade.store.archive_location import ArchiveLocation


@dataclass(frozen=True)
class Recovery:
    rolled_forward: int = 0
    orphans_deleted: int = 0


def tmp_dir(where: ArchiveLocation) -> Path:
    return where.root / "_tmp" / where.shard


def fsync(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def publish(root: Path, tmp_path: str, path: str) -> None:
    """Move one committed file from its temporary path to its place, durably."""
    final = root / path
    final.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.replace(root / tmp_path, final)
    except FileNotFoundError:
        raise ArchiveError(
            f"archived file {root / tmp_path} was deleted before it was published: the spans "
            "it held are lost. Is another process archiving into this folder as this shard?"
        ) from None
    fsync(final.parent)


def recover(connection: duckdb.DuckDBPyConnection, where: ArchiveLocation) -> Recovery:
    """Finish or undo what a crash left half done (see the module's docstring)."""
    rows = connection.execute("SELECT path, tmp_path, spans FROM archive_manifest").fetchall()
    rolled = 0
    for path, tmp_path, spans in rows:
        if (where.root / path).exists():
            continue
        if not (where.root / tmp_path).exists():
            raise ArchiveError(
                f"archived file {where.root / path} is missing (the manifest of this database "
                f"lists it, with {spans} spans): nothing more is archived until it is restored "
                "from a backup"
            )
        publish(where.root, tmp_path, path)
        rolled += 1
    known = {tmp for _, tmp, _ in rows}
    orphans = [
        f
        for f in sorted(tmp_dir(where).glob("*.parquet"))
        if str(f.relative_to(where.root)) not in known
    ]
    for orphan in orphans:
        orphan.unlink()
    return Recovery(rolled_forward=rolled, orphans_deleted=len(orphans))
