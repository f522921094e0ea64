"""Several shard databases read as one: `spans` over every shard's hot table and the archive.

A sharded deployment routes spans by trace id, so an eval run's traces (its own trace and
its turns') lie on several shards. Their archived spans are already one dataset (every
shard files under one root); their hot spans are not. `layer_shards` attaches the other
shards' files read-only beside the database opened, and makes this connection's `spans`
(and so every view, the scoring and the reports) read all their hot spans and the archive
as one. Scores are written to the database opened first only.

Each span is on one shard (routing by trace id keeps a trace on one): the hot tables are
put side by side, not deduplicated.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import duckdb

from tracegrade._resources import sql_files
from tracegrade.errors import ArchiveError, DatabaseError
from tracegrade.store.archive_location import ArchiveLocation, hot_spans, location
from tracegrade.store.migrations import MIGRATIONS_TABLE

_ALIAS = "tg_shard_{}"


def layer_shards(connection: duckdb.DuckDBPyConnection, others: Sequence[Path]) -> None:
    """Attach `others` read-only and read their hot spans with this database's and the
    archive's, for this connection. Run before `readonly.lock_down`: attaching reads files."""
    if not others:
        return
    own = _own_path(connection)
    tables = [hot_spans(connection)]
    for index, path in enumerate(others, start=1):
        tables.append(_attach(connection, path, _ALIAS.format(index), own))
    archive = _one_archive(connection, len(others))
    hot = " UNION ALL BY NAME ".join(f"SELECT * FROM {table}" for table in tables)  # noqa: S608 — quoted names
    if archive is None:
        connection.execute(f"CREATE OR REPLACE TEMP VIEW spans AS {hot}")
        return
    _allow(connection, archive.root)
    (path,) = [p for p in sql_files("archive") if p.stem == "03_spans"]
    files = archive.files_glob().replace("'", "''")
    connection.execute(path.read_text().format(hot_spans=f"({hot})", files=files))


def _own_path(connection: duckdb.DuckDBPyConnection) -> Path:
    ((path,),) = connection.execute(
        "SELECT path FROM duckdb_databases() WHERE database_name = current_database()"
    ).fetchall()
    return Path(path).resolve()


def _attach(connection: duckdb.DuckDBPyConnection, path: Path, alias: str, own: Path) -> str:
    """Attach one shard; its hot `spans` table by its full name."""
    if not path.exists():
        raise DatabaseError(f"--db {path}: no database there")
    attached = {
        Path(row[0]).resolve()
        for row in connection.execute(
            "SELECT path FROM duckdb_databases() WHERE path IS NOT NULL"
        ).fetchall()
    }
    if path.resolve() in attached | {own}:
        raise DatabaseError(f"--db {path}: given twice (each shard's database once)")
    try:
        quoted = str(path).replace("'", "''")
        connection.execute(f"ATTACH '{quoted}' AS {alias} (READ_ONLY)")
    except duckdb.Error as exc:
        raise DatabaseError(
            f"--db {path}: cannot be read beside the others ({exc}); a shard held by "
            "`tracegrade serve` is read by no other process: score a copy, or stop it"
        ) from None
    _require_current(connection, path, alias)
    return f'"{alias}".main.spans'


def _require_current(connection: duckdb.DuckDBPyConnection, path: Path, alias: str) -> None:
    """The shard has this tracegrade's migrations, so its `spans` has the same columns."""
    try:
        rows = connection.execute(f"SELECT name FROM {alias}.main.{MIGRATIONS_TABLE}").fetchall()  # noqa: S608 — constants
    except duckdb.CatalogException:
        raise DatabaseError(f"--db {path}: not a tracegrade database") from None
    missing = sorted({p.stem for p in sql_files("migrations")} - {row[0] for row in rows})
    if missing:
        raise DatabaseError(
            f"--db {path} was written by an older tracegrade (missing {', '.join(missing)}): "
            "run `tracegrade db upgrade --db` on it"
        )


def _one_archive(connection: duckdb.DuckDBPyConnection, others: int) -> ArchiveLocation | None:
    """The archive every shard with files writes to; shards archiving to different roots
    cannot be read as one dataset, which the views need."""
    found: dict[Path, ArchiveLocation] = {}
    own = location(connection)
    if own is not None and own.has_files():
        found[own.root] = own
    for index in range(1, others + 1):
        where = _attached_location(connection, _ALIAS.format(index))
        if where is not None and where.has_files():
            found.setdefault(where.root, where)
    if len(found) > 1:
        roots = ", ".join(str(root) for root in sorted(found))
        raise ArchiveError(
            f"the shards archive to different roots ({roots}): give shards of one archive"
        )
    return next(iter(found.values()), None)


def _attached_location(connection: duckdb.DuckDBPyConnection, alias: str) -> ArchiveLocation | None:
    exists = connection.execute(
        "SELECT 1 FROM duckdb_tables() WHERE table_name = 'archive_location' "
        "AND database_name = ? AND schema_name = 'main'",
        [alias],
    ).fetchall()
    if not exists:
        return None
    rows = connection.execute(f"SELECT root, shard FROM {alias}.main.archive_location").fetchall()  # noqa: S608 — constants
    return ArchiveLocation(Path(rows[0][0]), rows[0][1]) if rows else None


def _allow(connection: duckdb.DuckDBPyConnection, root: Path) -> None:
    """As archive_location does for its own root: the views read the archive there."""
    ((allowed,),) = connection.execute("SELECT current_setting('allowed_directories')").fetchall()
    folder = f"{root}/"
    if folder not in (allowed or []):
        connection.execute("SET allowed_directories = ?", [[*(allowed or []), folder]])
