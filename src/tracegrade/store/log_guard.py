"""A damaged write-ahead log stops the open before DuckDB replays it, and is never lost.

DuckDB replays what it can of a damaged log and (writable) deletes it, silently (see
`wal`). So `connect()` checks the log first. A damaged one is left as it is, a copy is
kept beside it as `<db>.wal.damaged-<its mtime>` (once per log), and the open is refused
with one line saying what the log still holds and how to keep it. Only when asked
(`discard=True`: `tracegrade serve --discard-damaged-log`) is the log moved aside under
that name, and the database opened as of its last checkpoint, with a warning.
"""

from __future__ import annotations

import itertools
import logging
import os
import shutil
import struct
from datetime import UTC, datetime
from pathlib import Path

from tracegrade.errors import DamagedLogError, DatabaseError
from tracegrade.store import damage
from tracegrade.store.wal import LogDamage, check_log

logger = logging.getLogger("tracegrade.store")

_OWN_DESCRIPTORS = "/proc/self/fd"
_FLOCK = struct.Struct("hhqqi4x")  # Linux's struct flock: type, whence, start, length, pid


def guard_log(db: Path, *, discard: bool = False) -> None:
    """Refuse (`DamagedLogError`) to open `db` over a damaged log, or with `discard` move
    the log aside; nothing when the log is intact, or a live writer is appending to it."""
    if _in_use(db):
        return  # its writer (DuckDB says who) appends to the log: a tail in flight is no damage
    found = check_log(db)
    if found is None:
        return
    if not discard:
        raise DamagedLogError(damage.damaged_log(db, found, _copy_aside(found)))
    aside = _aside(found)
    try:
        os.replace(found.path, aside)
    except OSError as exc:
        raise DatabaseError(f"cannot move the damaged log {found.path} aside: {exc}") from None
    logger.warning("tracegrade: %s", damage.discarded_log(db, found, aside))


def _aside(found: LogDamage) -> Path:
    """The name to keep the log under: the same for the same log (its mtime and size), so
    refused opens one after another copy it once; never a kept copy of another log."""
    written = datetime.fromtimestamp(found.path.stat().st_mtime, UTC)
    name = f"{found.path.name}.damaged-{written:%Y%m%dT%H%M%S.%fZ}"
    candidates = (name if n == 0 else f"{name}.{n}" for n in itertools.count())
    for candidate in map(found.path.with_name, candidates):
        if not candidate.exists() or candidate.stat().st_size == found.size:
            return candidate
    raise AssertionError("unreachable: the names never run out")


def _copy_aside(found: LogDamage) -> Path | None:
    aside = _aside(found)
    if aside.exists():
        return aside
    partial = aside.with_name(aside.name + ".partial")
    try:
        shutil.copyfile(found.path, partial)
        os.replace(partial, aside)  # never a half copy under the final name
    except OSError:  # a folder this user cannot write: the log itself is left as it is
        partial.unlink(missing_ok=True)
        return None
    return aside


def _in_use(db: Path) -> bool:
    """Whether this process has `db` open (a DuckDB instance here replayed the log and
    may be writing it), or another holds DuckDB's write lock on it (Linux; elsewhere, no)."""
    try:
        target = db.stat()
        descriptors = os.listdir(_OWN_DESCRIPTORS)
    except OSError:
        return False
    return _open_here(target, descriptors) or _locked_for_writing(db)


def _open_here(target: os.stat_result, descriptors: list[str]) -> bool:
    for name in descriptors:
        try:
            here = os.stat(f"{_OWN_DESCRIPTORS}/{name}")
        except OSError:
            continue  # closed meanwhile, or the listing's own descriptor
        if (here.st_dev, here.st_ino) == (target.st_dev, target.st_ino):
            return True
    return False


def _locked_for_writing(db: Path) -> bool:
    """Asked with F_GETLK, which takes no lock (taking one would make a writer starting at
    that instant fail). Opening and closing the file is safe only because this process
    does not have it open: a close drops all of a process's locks on the file."""
    import fcntl  # POSIX only; not reached where there is no /proc/self/fd

    try:
        descriptor = os.open(db, os.O_RDONLY)
    except OSError:
        return False
    try:
        query = _FLOCK.pack(fcntl.F_RDLCK, os.SEEK_SET, 0, 0, 0)
        held: int = _FLOCK.unpack(fcntl.fcntl(descriptor, fcntl.F_GETLK, query))[0]
    finally:
        os.close(descriptor)
    return held != fcntl.F_UNLCK
