"""Where a database archives its spans, and reading the hot table and the archive as one.

A database archives into one root folder under its own shard name (`archive_location`).
Every file of every shard lies at `<root>/shard=<s>/day=<d>/hour=<h>/<batch>.parquet`, so
one glob reads the whole archive, and Spark, Trino or DuckDB read it as a Hive-partitioned
dataset; files being written wait in `<root>/_staging/`, which those readers skip (see
`archive_files`), and `<root>/_schema.json` states the files' schema (`archive_schema`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import duckdb

from tracegrade._resources import sql_files
from tracegrade.errors import ArchiveError
from tracegrade.store.archive_owner import claim
from tracegrade.store.archive_schema import write_schema_file

_SHARD_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
# `scheme://...`, and `scheme:/...` too: a `Path` has already folded the double slash.
_URL = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]+):/")
FILES_GLOB = "shard=*/day=*/hour=*/*.parquet"


@dataclass(frozen=True)
class ArchiveLocation:
    root: Path
    shard: str

    def files_glob(self) -> str:
        return str(self.root / FILES_GLOB)

    def has_files(self) -> bool:
        return next(iter(self.root.glob(FILES_GLOB)), None) is not None


def archive_root(value: str | os.PathLike[str]) -> Path:
    """The archive's root folder, absolute. An object-store URL is refused: publishing a
    batch relies on an atomic rename within one file system, which object stores lack,
    and a `Path` would silently turn `s3://b/x` into a local folder `./s3:/b/x`."""
    text = os.fspath(value)
    url = _URL.match(text)
    if url:
        raise ArchiveError(
            f"archive {text}: object stores ({url['scheme']}://) are not supported yet; give "
            "a local or mounted folder, and sync it to the bucket with a tool (aws s3 sync, "
            "rclone), where Spark and other engines read it"
        )
    return Path(text).expanduser().resolve()


def hot_spans(connection: duckdb.DuckDBPyConnection) -> str:
    """The hot `spans` table by its full name, which a temporary `spans` view cannot shadow."""
    ((name,),) = connection.execute("SELECT current_database()").fetchall()
    return f'"{name}".main.spans'


def location(connection: duckdb.DuckDBPyConnection) -> ArchiveLocation | None:
    """The database's archive; None when it has none (or no such table: a bare connection)."""
    exists = connection.execute(
        "SELECT 1 FROM duckdb_tables() WHERE table_name = 'archive_location' "
        "AND database_name = current_database() AND schema_name = 'main'"
    ).fetchall()
    if not exists:
        return None
    rows = connection.execute("SELECT root, shard FROM archive_location LIMIT 1").fetchall()
    return ArchiveLocation(Path(rows[0][0]), rows[0][1]) if rows else None


def set_location(
    connection: duckdb.DuckDBPyConnection, root: str | os.PathLike[str], shard: str
) -> ArchiveLocation:
    """Record where this database archives. A database keeps one root, because its
    manifest's paths are relative to it; its shard name may change (a database refused a
    shard another owns), and what it archived stays where it is."""
    if not _SHARD_NAME.match(shard):
        raise ArchiveError(
            f"shard {shard!r}: use 1-64 letters, digits, '_', '-' or '.', starting with a "
            "letter or digit"
        )
    wanted = ArchiveLocation(archive_root(root), shard)
    current = location(connection)
    if current is None:
        connection.execute(
            "INSERT INTO archive_location (root, shard, database_id) "
            "VALUES (?, ?, uuid()::VARCHAR)",
            [str(wanted.root), wanted.shard],
        )
        return wanted
    if current.root == wanted.root and current.shard != wanted.shard:
        connection.execute("UPDATE archive_location SET shard = ?", [wanted.shard])
        return wanted
    if current != wanted:
        raise ArchiveError(
            f"this database archives to {current.root} as shard '{current.shard}', not "
            f"{wanted.root} as '{wanted.shard}': archive it there, or start a new database"
        )
    return current


def layer_archive(connection: duckdb.DuckDBPyConnection) -> bool:
    """Make `spans` (and so every view) read the hot table and the archive as one, for this
    connection; False when the database has no archive yet or it holds no file.

    The archive's folder is allowed first: user SQL runs with file access off (see
    `readonly.lock_down`), and DuckDB's `allowed_directories` is what still lets the views
    read (and the archiver write) there, and nowhere else."""
    where = location(connection)
    if where is None:
        return False
    _allow(connection, where)
    from tracegrade.store.archive_files import finish  # it imports ArchiveLocation from here

    finish(connection, where)  # a batch a crash left unpublished is read, not missed
    if not where.has_files():
        return False
    (path,) = [p for p in sql_files("archive") if p.stem == "03_spans"]
    sql = path.read_text().format(
        hot_spans=hot_spans(connection), files=where.files_glob().replace("'", "''")
    )
    connection.execute(sql)
    return True


def open_archive(
    connection: duckdb.DuckDBPyConnection, root: str | os.PathLike[str], shard: str
) -> ArchiveLocation:
    """Set (or check) the archive of the database, claim its shard in the archive (see
    `archive_owner`), and read the archive with the hot table. A refused claim records no
    location, so the database may then be given another shard."""
    connection.execute("BEGIN TRANSACTION")
    try:
        where = set_location(connection, root, shard)
        claim(connection, where.root, where.shard)
        write_schema_file(where.root)
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    layer_archive(connection)
    return where


def _allow(connection: duckdb.DuckDBPyConnection, where: ArchiveLocation) -> None:
    ((locked, allowed),) = connection.execute(
        "SELECT current_setting('lock_configuration'), current_setting('allowed_directories')"
    ).fetchall()
    folder = f"{where.root}/"
    if locked or folder in (allowed or []):
        return  # locked by `serve` after it allowed the folder (or the file is read raw)
    connection.execute("SET allowed_directories = ?", [[*(allowed or []), folder]])
