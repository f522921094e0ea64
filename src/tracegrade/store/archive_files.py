"""The archive's files on disk: publishing a committed batch and recovering after a crash.

A batch's file is written as `<root>/_staging/<shard>/<batch>.parquet.tmp`, fsynced, then
recorded in `archive_manifest` in the transaction that deletes its spans from the hot
table, and only then renamed to its place under `shard=`. So a published file always has
a committed manifest row. The staging name is one no reader takes for part of the
dataset: Hive, pyarrow and Spark skip a folder starting with `_`, and a `**/*.parquet`
glob (DuckDB, polars) does not match `.parquet.tmp`.

After a crash, `finish()` completes what the crash interrupted, at the next open of the
database (a reader's too, so no reader misses a committed batch): a committed file still
in staging is renamed into place, after the files a committed prune or compaction
dropped are deleted (so a compacted file and its sources are never read together).
`recover()`, at each archiving pass, also deletes a staged file no manifest row names
(its spans are still in the hot table). Files of older tracegrade versions waited under
`<root>/_tmp/<shard>/*.parquet`; they are finished the same way.

Tested on local paths only: the rename is what makes publishing atomic, and object stores
have none (see `archive_location.archive_root`).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

import duckdb

from tracegrade.errors import ArchiveError
from tracegrade.store.archive_location import ArchiveLocation
from tracegrade.store.archive_schema import JSON_COLUMNS, kv_metadata

logger = logging.getLogger("tracegrade.archive")
STAGING_DIR = "_staging"
STAGED_SUFFIX = ".parquet.tmp"
# Rows per Parquet row group: DuckDB's default; readers prune row groups by trace id.
_ROW_GROUP = 122_880
_STAGED_GLOBS = (f"{STAGING_DIR}/*/*{STAGED_SUFFIX}", "_tmp/*/*.parquet")  # now, and before


@dataclass(frozen=True)
class Recovery:
    rolled_forward: int = 0
    orphans_deleted: int = 0


def staging_dir(where: ArchiveLocation) -> Path:
    return where.root / STAGING_DIR / where.shard


def fsync(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def write_parquet(connection: duckdb.DuckDBPyConnection, select: str, target: Path) -> None:
    """One archive file of the spans `select` gives, in the current schema (see
    `archive_schema`): JSON columns as plain strings, sorted by trace id, fsynced."""
    as_text = ", ".join(f"{c}::VARCHAR AS {c}" for c in JSON_COLUMNS)
    connection.execute(
        f"COPY (SELECT * REPLACE ({as_text}) FROM ({select}) ORDER BY trace_id, start_ns) "  # noqa: S608 — our path, quoted
        f"TO '{_quoted(str(target))}' "
        f"(FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE {_ROW_GROUP}, {kv_metadata()})"
    )
    fsync(target)


def publish(root: Path, tmp_path: str, path: str) -> None:
    """Move one committed file from staging to its place, durably. Published already (by
    a reader's `finish`, racing this archiver in the same process) is done."""
    final = root / path
    final.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.replace(root / tmp_path, final)
    except FileNotFoundError:
        if final.exists():
            return
        raise ArchiveError(
            f"archived file {root / tmp_path} was deleted before it was published: the spans "
            "it held are lost. Is another process archiving into this folder as this shard?"
        ) from None
    fsync(final.parent)


def finish(connection: duckdb.DuckDBPyConnection, where: ArchiveLocation) -> int:
    """Publish the committed files a crash left in staging; how many. Cheap when there are
    none: one listing of the staging folders."""
    staged = [str(p.relative_to(where.root)) for g in _STAGED_GLOBS for p in where.root.glob(g)]
    if not staged:
        return 0
    committed = connection.execute(
        "SELECT path, tmp_path, spans FROM archive_manifest WHERE list_contains(?, tmp_path)",
        [staged],
    ).fetchall()
    if not committed:
        return 0  # being written, or orphans the next pass deletes
    spans = sum(spans for _, _, spans in committed)
    try:
        drop_pruned(connection, where.root)
        for path, tmp_path, _ in committed:
            publish(where.root, tmp_path, path)
    except OSError as exc:  # a reader without write access: loud, and the read goes on
        logger.warning(
            "archive %s: %d committed files (%d spans) wait in %s/ and could not be "
            "published (%s): readers miss them until `tracegrade archive` runs with write "
            "access",
            where.root,
            len(committed),
            spans,
            STAGING_DIR,
            exc,
        )
        return 0
    logger.warning(
        "archive %s: published %d committed files (%d spans) that were left in %s/ by a "
        "crash between commit and publishing (or an archiving pass publishing right now)",
        where.root,
        len(committed),
        spans,
        STAGING_DIR,
    )
    return len(committed)


def drop_pruned(connection: duckdb.DuckDBPyConnection, root: Path) -> int:
    """Delete the files a committed prune or compaction dropped that are still on disk."""
    rows = connection.execute(
        "SELECT path FROM archive_pruned WHERE path NOT IN (SELECT path FROM archive_manifest)"
    ).fetchall()
    dropped = 0
    for (path,) in rows:
        file = root / path
        if file.exists():
            file.unlink()
            dropped += 1
            _remove_empty(file.parent, root)
    return dropped


def _remove_empty(folder: Path, root: Path) -> None:
    """Remove a partition's folders left empty (hour=, then day=), never the shard's."""
    while folder != root and not folder.name.startswith("shard=") and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def recover(connection: duckdb.DuckDBPyConnection, where: ArchiveLocation) -> Recovery:
    """Finish or undo what a crash left half done (see the module's docstring), and stop
    if a committed file is gone."""
    rolled = finish(connection, where)
    drop_pruned(connection, where.root)
    _require_files(connection, where)
    known = {
        tmp for (tmp,) in connection.execute("SELECT tmp_path FROM archive_manifest").fetchall()
    }
    mine = [
        *staging_dir(where).glob(f"*{STAGED_SUFFIX}"),
        *(where.root / "_tmp" / where.shard).glob("*.parquet"),
    ]
    orphans = [f for f in sorted(mine) if str(f.relative_to(where.root)) not in known]
    for orphan in orphans:
        orphan.unlink()
    return Recovery(rolled_forward=rolled, orphans_deleted=len(orphans))


def _require_files(connection: duckdb.DuckDBPyConnection, where: ArchiveLocation) -> None:
    rows = connection.execute(
        "SELECT path, day, spans FROM archive_manifest ORDER BY path"
    ).fetchall()
    missing = [(path, day, spans) for path, day, spans in rows if not (where.root / path).exists()]
    if not missing:
        return
    days = sorted({str(day) for _, day, _ in missing})
    shown = ", ".join(days[:3]) + (f" and {len(days) - 3} more" if len(days) > 3 else "")
    raise ArchiveError(
        f"archive {where.root}: {len(missing)} archived files of this database are missing "
        f"(day {shown}; {sum(s for _, _, s in missing)} spans, first {missing[0][0]}): restore "
        "them from a backup, or if they were deleted on purpose record that with "
        "`tracegrade archive --prune-missing` (nothing more is archived until then)"
    )


def _quoted(text: str) -> str:
    return text.replace("'", "''")
