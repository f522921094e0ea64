"""One database per shard name: the owner file that claims a shard of the archive.

Two databases archiving under one shard name would break each other: each one's recovery
deletes the files in `_staging/<shard>/` its own manifest does not name, which are the
other's batches being written or just committed (measured: 405 of 60,000 spans lost, and
the database that lost them could not archive again). So the first database to archive
as a shard writes `<root>/_shards/<shard>.owner` naming its `database_id`, and any other
database is refused that shard for good, running or not: a stopped owner's committed
files may still wait in `_staging/`. A claim is stale only when its database is gone: on
this host, no file at its path, or a different database there (one made anew at the same
path); then the next claimant takes it over. Claims are made under an flock, so two
claimants cannot both win.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb

from tracegrade.errors import ArchiveError

OWNERS_DIR = "_shards"


def owner_file(root: Path, shard: str) -> Path:
    return root / OWNERS_DIR / f"{shard}.owner"


def claim(connection: duckdb.DuckDBPyConnection, root: Path, shard: str) -> None:
    """Claim the shard for this connection's database, or raise naming its owner."""
    mine = _identity(connection)
    path = owner_file(root, shard)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _claims_locked(path.parent):
        owner = _read(path)
        if owner is not None and owner.get("database_id") == mine["database_id"]:
            return
        if owner is not None and not _gone(owner, mine):
            raise ArchiveError(_refusal(root, shard, path, owner))
        _write(path, mine)


def _identity(connection: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    ((database_id, db_path),) = connection.execute(
        "SELECT (SELECT database_id FROM archive_location LIMIT 1), "
        "(SELECT path FROM duckdb_databases() WHERE database_name = current_database())"
    ).fetchall()
    db = str(Path(db_path).resolve()) if db_path else ":memory:"
    return {
        "database_id": database_id,
        "database": db,
        "host": socket.gethostname(),
        "pid": os.getpid(),
    }


def _gone(owner: dict[str, Any], mine: dict[str, Any]) -> bool:
    """The owner's database no longer exists (decidable on its own host only)."""
    if owner.get("host") != mine["host"]:
        return False
    database = owner.get("database")
    return (
        not isinstance(database, str) or database == mine["database"] or not Path(database).exists()
    )


def _refusal(root: Path, shard: str, path: Path, owner: dict[str, Any]) -> str:
    return (
        f"archive {root}: shard '{shard}' belongs to database "
        f"{owner.get('database')} (host {owner.get('host')}, pid {owner.get('pid')}): give "
        f"each database its own --shard (if that database is gone for good, delete {path})"
    )


@contextlib.contextmanager
def _claims_locked(folder: Path) -> Iterator[None]:
    descriptor = os.open(folder / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # releases the lock


def _read(path: Path) -> dict[str, Any] | None:
    try:
        owner = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        owner = exc
    if not isinstance(owner, dict):
        raise ArchiveError(f"{path}: not a shard owner file ({owner}): fix or delete it")
    return owner


def _write(path: Path, owner: dict[str, Any]) -> None:
    """Whole or not at all: written aside, fsynced, renamed into place."""
    aside = path.with_suffix(f".{os.getpid()}.tmp")
    aside.write_text(json.dumps(owner, indent=2) + "\n")
    _fsync(aside)
    os.replace(aside, path)
    _fsync(path.parent)


def _fsync(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
