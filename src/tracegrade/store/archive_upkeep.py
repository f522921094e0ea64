"""Retention and compaction of a database's archived files (`tracegrade archive --prune-*`,
`--compact`).

Every change is recorded before a file is touched: the manifest rows of the files dropped
move to `archive_pruned` in one transaction, and only then are the files deleted (a crash
in between leaves files the next open deletes, see `archive_files.drop_pruned`). So a
pruned day stays pruned, a day deleted by hand stops failing every pass once recorded,
and the views never read a span twice. Only this database's files are touched (the
manifest's): each shard prunes and compacts its own.

Compaction rewrites a partition's files (one per archiving pass that reached it) into
one: written in staging, checked to hold every span once, committed (the new manifest row
and the old rows' move in one transaction), then the old files deleted and the new one
published. A crash at any step leaves each span readable in exactly one file, or (between
the deletion and the rename) in a committed staged file the next open publishes.
"""

from __future__ import annotations

import datetime as dt
import time
import uuid
from dataclasses import dataclass

import duckdb

from tracegrade.errors import ArchiveError
from tracegrade.store.archive_files import (
    STAGED_SUFFIX,
    drop_pruned,
    publish,
    staging_dir,
    write_parquet,
)
from tracegrade.store.archive_location import ArchiveLocation
from tracegrade.store.connection import transaction

_NS_PER_DAY = 86_400 * 10**9


@dataclass(frozen=True)
class Pruned:
    files: int = 0
    spans: int = 0
    days: tuple[str, ...] = ()


@dataclass(frozen=True)
class Compacted:
    partitions: int = 0
    files_before: int = 0


def prune_missing(connection: duckdb.DuckDBPyConnection, where: ArchiveLocation) -> Pruned:
    """Record the committed files that are gone (deleted by hand) as pruned."""
    rows = connection.execute("SELECT path, tmp_path FROM archive_manifest").fetchall()
    gone = [
        p for p, tmp in rows if not (where.root / p).exists() and not (where.root / tmp).exists()
    ]
    return _drop(connection, where, gone, "missing")


def prune_older(
    connection: duckdb.DuckDBPyConnection,
    where: ArchiveLocation,
    days: float,
    *,
    now_ns: int | None = None,
) -> Pruned:
    """Delete the day partitions that ended more than `days` ago (whole UTC days)."""
    now = time.time_ns() if now_ns is None else now_ns
    cutoff = dt.datetime.fromtimestamp((now - int(days * _NS_PER_DAY)) / 1e9, dt.UTC).date()
    rows = connection.execute("SELECT path FROM archive_manifest WHERE day < ?", [cutoff])
    return _drop(connection, where, [path for (path,) in rows.fetchall()], "older-than")


def _drop(
    connection: duckdb.DuckDBPyConnection, where: ArchiveLocation, paths: list[str], reason: str
) -> Pruned:
    if not paths:
        return Pruned()
    ((spans, days),) = connection.execute(
        "SELECT sum(spans), list(DISTINCT day::VARCHAR ORDER BY day::VARCHAR) "
        "FROM archive_manifest WHERE list_contains(?, path)",
        [paths],
    ).fetchall()
    with transaction(connection):
        _move_to_pruned(connection, paths, reason)
    drop_pruned(connection, where.root)
    return Pruned(files=len(paths), spans=int(spans), days=tuple(days))


def _move_to_pruned(connection: duckdb.DuckDBPyConnection, paths: list[str], reason: str) -> None:
    connection.execute(
        "INSERT OR REPLACE INTO archive_pruned (path, day, hour, spans, reason) "
        "SELECT path, day, hour, spans, ? FROM archive_manifest WHERE list_contains(?, path)",
        [reason, paths],
    )
    connection.execute("DELETE FROM archive_manifest WHERE list_contains(?, path)", [paths])


def compact(connection: duckdb.DuckDBPyConnection, where: ArchiveLocation) -> Compacted:
    """Rewrite every partition of this database holding more than one file into one."""
    groups = connection.execute(
        "SELECT split_part(path, '/', 1) AS shard_dir, day, hour, list(path ORDER BY path) "
        "FROM archive_manifest GROUP BY ALL HAVING count(*) > 1 ORDER BY ALL"
    ).fetchall()
    for shard_dir, day, hour, paths in groups:
        _compact_one(connection, where, f"{shard_dir}/day={day}/hour={hour}", day, hour, paths)
    return Compacted(partitions=len(groups), files_before=sum(len(g[3]) for g in groups))


def _compact_one(
    connection: duckdb.DuckDBPyConnection,
    where: ArchiveLocation,
    folder: str,
    day: object,
    hour: int,
    paths: list[str],
) -> None:
    batch_id = uuid.uuid4().hex[:16]
    files = [str(where.root / p) for p in paths]
    connection.execute(
        "CREATE OR REPLACE TEMP TABLE archive_compact AS SELECT * "
        "FROM read_parquet(?, union_by_name = true, hive_partitioning = false)",
        [files],
    )
    _require_once(connection, paths)
    staging_dir(where).mkdir(parents=True, exist_ok=True)
    staged = staging_dir(where) / f"{batch_id}{STAGED_SUFFIX}"
    write_parquet(connection, "SELECT * FROM archive_compact", staged)
    tmp_path, path = str(staged.relative_to(where.root)), f"{folder}/{batch_id}.parquet"
    with transaction(connection):
        connection.execute(
            "INSERT INTO archive_manifest (path, tmp_path, batch_id, day, hour, spans, "
            "min_end_ns, max_end_ns, bytes) SELECT ?, ?, ?, ?, ?, count(*), min(end_ns), "
            "max(end_ns), ? FROM archive_compact",
            [path, tmp_path, batch_id, day, hour, staged.stat().st_size],
        )
        _move_to_pruned(connection, paths, "compacted")
    drop_pruned(connection, where.root)  # the old files first: never read with the new one
    publish(where.root, tmp_path, path)
    connection.execute("DROP TABLE archive_compact")


def _require_once(connection: duckdb.DuckDBPyConnection, paths: list[str]) -> None:
    """The files hold what the manifest says, each span once, or nothing is rewritten."""
    ((rows, keys, listed),) = connection.execute(
        "SELECT count(*), count(DISTINCT (trace_id, span_id)), "
        "(SELECT sum(spans) FROM archive_manifest WHERE list_contains(?, path)) "
        "FROM archive_compact",
        [paths],
    ).fetchall()
    if not rows == keys == listed:
        raise ArchiveError(
            f"archive: not compacting {paths[0].rsplit('/', 1)[0]}: its files hold {rows} "
            f"spans ({keys} distinct), its manifest rows {listed}; nothing was changed"
        )
