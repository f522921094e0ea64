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
from datetime import UTC, datetime
from pathlib import Path

from tracegrade.errors import DamagedLogError, DatabaseError
from tracegrade.store import damage
from tracegrade.store.wal import LogDamage, check_log

logger = logging.getLogger("tracegrade.store")

_LOCKS = Path("/proc/locks")


def guard_log(db: Path, *, discard: bool = False) -> None:
    """Refuse (`DamagedLogError`) to open `db` over a damaged log, or with `discard` move
    the log aside; nothing when the log is intact, or a live writer is appending to it."""
    if _held_for_writing(db):
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


def _held_for_writing(db: Path) -> bool:
    """Whether some process, this one included, holds DuckDB's write lock on `db`.

    Read from /proc/locks rather than by testing the lock: closing any descriptor of the
    file would drop this process's own DuckDB lock on it. Where there is no /proc/locks
    the log is checked regardless."""
    try:
        stat = db.stat()
        locks = _LOCKS.read_text()
    except OSError:
        return False
    device = f"{os.major(stat.st_dev):02x}:{os.minor(stat.st_dev):02x}:{stat.st_ino}"
    return any(
        fields[3] == "WRITE" and fields[5] == device
        for fields in (line.split() for line in locks.splitlines())
        if len(fields) > 5  # a waiter's line ("->") has the fields one further on
    )
