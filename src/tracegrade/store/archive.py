"""Moving committed spans from the hot DuckDB table into the Parquet archive.

An archiving pass moves every trace whose spans all ended before the cutoff (now minus
the retention), one batch per (day, hour) partition of the traces' first spans. Each
batch is one zstd Parquet file sorted by trace id, written first in `_staging/`, then
recorded in `archive_manifest` in the same transaction that deletes its spans from the
hot table, then published (see `archive_files`). A kill at any moment leaves each span in
exactly one of the hot table and a committed file, and the span writer stores no span a
committed file holds (see `archived`). DuckDB files never shrink: the freed
blocks are reused by later spans, so retention caps the hot file's size rather than
reducing it.
"""

from __future__ import annotations

import contextlib
import os
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

import duckdb

from tracegrade._resources import sql_files
from tracegrade.store.archive_files import (
    STAGED_SUFFIX,
    Recovery,
    fsync,
    publish,
    recover,
    staging_dir,
    write_parquet,
)
from tracegrade.store.archive_location import (
    ArchiveLocation,
    hot_spans,
    location,
    open_archive,
)
from tracegrade.store.archive_owner import claim
from tracegrade.store.archive_upkeep import (
    Compacted,
    Pruned,
    compact,
    prune_missing,
    prune_older,
)
from tracegrade.store.archived import ArchivedSpans, drop_copies
from tracegrade.store.rows import SPAN_COLUMNS

if TYPE_CHECKING:
    from tracegrade.store.writer import SpanWriter

# The raw columns `spans` stores, as the writer and the database filled them.
ARCHIVED_COLUMNS = (*SPAN_COLUMNS, "ingested_at")
_NS_PER_DAY = 86_400 * 10**9


@dataclass(frozen=True)
class ArchivePass:
    """What one pass did: spans moved, files written, what recovery found first, and hot
    copies of archived spans deleted (stored by an older tracegrade)."""

    spans: int
    files: int
    recovery: Recovery
    copies: int = 0


@dataclass(frozen=True)
class Upkeep:
    """What `tracegrade archive` does besides moving spans (see `archive_upkeep`)."""

    prune_missing: bool = False
    prune_older_than_days: float | None = None
    compact: bool = False


@dataclass(frozen=True)
class ArchiveRun:
    moved: ArchivePass
    missing: Pruned
    pruned: Pruned
    compacted: Compacted


def archive_database(
    db: str | os.PathLike[str] | None,
    root: str | os.PathLike[str],
    *,
    shard: str,
    retain_days: float,
    upkeep: Upkeep = Upkeep(),
) -> ArchiveRun:
    """`tracegrade archive`: one pass over a database no other process holds, and the
    upkeep asked for: files deleted by hand recorded first (else the pass stops on them),
    old days pruned and partitions compacted after it."""
    from tracegrade.store.connection import connect

    connection = connect(db)
    try:
        where = open_archive(connection, root, shard)
        missing = prune_missing(connection, where) if upkeep.prune_missing else Pruned()
        moved = archive_pass(connection, retain_days)
        days = upkeep.prune_older_than_days
        pruned = prune_older(connection, where, days) if days is not None else Pruned()
        compacted = compact(connection, where) if upkeep.compact else Compacted()
        return ArchiveRun(moved, missing, pruned, compacted)
    finally:
        connection.close()


def archive_pass(
    connection: duckdb.DuckDBPyConnection,
    retain_days: float,
    *,
    now_ns: int | None = None,
    writer: SpanWriter | None = None,
) -> ArchivePass:
    """Archive every trace that ended more than `retain_days` ago. `writer`, the live
    writer of the connection's database if it has one: its lock is held only around each
    batch's commit and publishing, and it learns what the archive now holds."""
    where = location(connection)
    if where is None:
        raise ValueError("archive_pass needs the database's archive location set first")
    claim(connection, where.root, where.shard)  # each pass: its owner file may have gone
    recovery = recover(connection, where)
    archived = writer.archived if writer else ArchivedSpans(connection)
    copies = drop_copies(connection, archived, writer.commit_lock if writer else None)
    now = time.time_ns() if now_ns is None else now_ns
    connection.execute("SET VARIABLE tg_archive_cutoff = ?", [now - int(retain_days * _NS_PER_DAY)])
    connection.execute(_sql("01_candidates", hot_spans=hot_spans(connection)))
    partitions = connection.execute(
        "SELECT DISTINCT day, hour FROM archive_candidates ORDER BY day, hour"
    ).fetchall()
    moved = 0
    for day, hour in partitions:
        moved += _archive_batch(connection, where, day, hour, writer)
    connection.execute("DROP TABLE IF EXISTS archive_candidates")
    return ArchivePass(spans=moved, files=len(partitions), recovery=recovery, copies=copies)


def _archive_batch(
    connection: duckdb.DuckDBPyConnection,
    where: ArchiveLocation,
    day: object,
    hour: int,
    writer: SpanWriter | None,
) -> int:
    batch_id = uuid.uuid4().hex[:16]
    connection.execute("SET VARIABLE tg_archive_day = ?", [day])
    connection.execute("SET VARIABLE tg_archive_hour = ?", [hour])
    columns = ", ".join(f"s.{c}" for c in ARCHIVED_COLUMNS)
    connection.execute(_sql("02_batch", hot_spans=hot_spans(connection), columns=columns))
    tmp_path = _write_tmp(connection, where, batch_id)
    path = f"shard={where.shard}/day={day}/hour={hour}/{batch_id}.parquet"
    ((spans, min_end, max_end),) = connection.execute(
        "SELECT count(*), min(end_ns), max(end_ns) FROM archive_batch"
    ).fetchall()
    entry = [path, tmp_path, batch_id, day, hour, spans, min_end, max_end]
    # Publishing under the lock too: the writer then finds every committed file where
    # the manifest says, at its place or (only after a crash) at its temporary path.
    with writer.commit_lock if writer else contextlib.nullcontext():
        if writer:
            writer.archived.raise_horizon(int(max_end))  # before the spans leave the table
        _commit(connection, where, entry)
        publish(where.root, tmp_path, path)
    connection.execute("DROP TABLE archive_batch")
    return int(spans)


def _write_tmp(connection: duckdb.DuckDBPyConnection, where: ArchiveLocation, batch_id: str) -> str:
    folder = staging_dir(where)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{batch_id}{STAGED_SUFFIX}"
    write_parquet(connection, "SELECT * FROM archive_batch", target)
    fsync(folder)
    return str(target.relative_to(where.root))


def _commit(
    connection: duckdb.DuckDBPyConnection, where: ArchiveLocation, entry: list[object]
) -> None:
    """The manifest row and the hot spans' deletion, in one transaction."""
    size = (where.root / str(entry[1])).stat().st_size
    connection.execute("BEGIN TRANSACTION")
    try:
        connection.execute(
            "INSERT INTO archive_manifest (path, tmp_path, batch_id, day, hour, spans, "
            "min_end_ns, max_end_ns, bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [*entry, size],
        )
        connection.execute(
            f"DELETE FROM {hot_spans(connection)} WHERE (trace_id, span_id) IN "  # noqa: S608 — the catalog's name
            "(SELECT trace_id, span_id FROM archive_batch)"
        )
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise


def _sql(stem: str, **names: str) -> str:
    (path,) = [p for p in sql_files("archive") if p.stem == stem]
    return path.read_text().format(**names)
