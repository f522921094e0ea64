"""DuckDB's errors about a file it cannot use, as one line naming the file and what to do.

DuckDB checks a database as it reads it: its header when it opens, each block's checksum
when a query reads that block, each log entry's checksum when it replays the log. So a
damaged block in data no query has read yet shows up only when one does; `connect()`
checks what can be checked cheaply at the start (the header, the file's length, the log).
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import duckdb

from tracegrade.errors import DatabaseError
from tracegrade.store.wal import MINIMAL_HEADER, LogDamage, wal_path

_BAD_LOG_ENTRY = re.compile(r"Corrupt WAL file: entry at byte position (?P<at>\d+)")
_RESTORE = "restore it from a backup: tracegrade cannot repair it"


def explain(exc: duckdb.Error, db: Path) -> DatabaseError:
    """The error to raise for `exc`, met while opening or reading `db`."""
    message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    bad_entry = _BAD_LOG_ENTRY.search(message)
    if bad_entry:
        return DatabaseError(_damaged_log(db, int(bad_entry["at"])))
    if "not a valid DuckDB database file" in message:
        return DatabaseError(
            f"{db} is not a DuckDB database (or its header is destroyed): point --db or "
            f"${{TRACEGRADE_DB}} at the right file, or {_RESTORE}"
        )
    if "Corrupt database file" in message or "Could not read enough bytes" in message:
        return DatabaseError(f"{db} is damaged ({message}): {_RESTORE}")
    if "Permission denied" in message or "Read-only file system" in message:
        return DatabaseError(_cannot_write(db, message))
    return DatabaseError(f"cannot use {db}: {message}")


def damaged_while_reading(exc: Exception) -> DatabaseError | None:
    """The error for a damaged block that a query met after the database opened; else None."""
    message = str(exc).splitlines()[0] if str(exc) else ""
    if not isinstance(exc, duckdb.Error) or not any(
        sign in message for sign in ("Corrupt database file", "Could not read enough bytes")
    ):
        return None
    return DatabaseError(f"the database is damaged ({message}): {_RESTORE}")


def truncated(db: Path, actual: int, expected: int) -> DatabaseError:
    return DatabaseError(
        f"{db} is damaged: it is {actual} bytes long, but its header describes {expected} "
        f"(cut short: a full disk, or an interrupted copy?): {_RESTORE}"
    )


def damaged_log(db: Path, damage: LogDamage, kept: Path | None) -> str:
    copy = f"a copy is kept as {kept}" if kept else "no copy could be made beside it"
    return (
        f"the write-ahead log {damage.path} is damaged ({damage.what}), so {db} was not "
        f"opened and the log is untouched ({copy}). {_keep(damage)}; or, to open {db} as of "
        "its last checkpoint without the log's changes, move the log aside "
        "(`tracegrade serve --discard-damaged-log` does that and starts)"
    )


def discarded_log(db: Path, damage: LogDamage, aside: Path) -> str:
    return (
        f"the write-ahead log {damage.path} is damaged ({damage.what}): as "
        f"--discard-damaged-log asks, it is moved aside to {aside} and {db} is opened as of "
        "its last checkpoint, without the log's changes"
    )


def _keep(damage: LogDamage) -> str:
    log = shlex.quote(str(damage.path))
    commits = "commit" if damage.commits == 1 else "commits"
    if damage.entries_from:
        header = _printf_escaped(MINIMAL_HEADER)
        return (
            f"Its {damage.commits} {commits} after the header are whole: to keep them, give it "
            f"a header DuckDB accepts: `{{ printf '{header}'; tail -c "
            f"+{damage.entries_from + 1} {log}; }} > {log}.new && mv {log}.new {log}`"
        )
    if not damage.intact:
        return "Nothing in it can be replayed: no whole entry follows its header"
    return (
        f"To keep the {damage.commits} whole {commits} logged before the damage, "
        f"`truncate -s {damage.intact} {log}`"
    )


def _printf_escaped(data: bytes) -> str:
    """`data` as printf(1) writes it back: letters and digits as they are, octal for the rest."""
    return "".join(chr(b) if b < 128 and chr(b).isalnum() else f"\\{b:03o}" for b in data)


def _damaged_log(db: Path, at: int) -> str:
    log = wal_path(db)
    return (
        f"the write-ahead log {log} is damaged at byte {at}, so DuckDB will not open {db}. "
        f"Copy both files somewhere safe, then keep the changes logged before the damage "
        f"with `truncate -s {at} {log}`, or move the log aside to open the database as of "
        "its last checkpoint (all the log's changes are then lost)"
    )


def unwritable_folder(db: Path) -> DatabaseError | None:
    """The error for a database whose folder this user cannot write, found before DuckDB
    needs to: a writable open that changes nothing (its views current) writes no log, so the
    command would otherwise fail at its first write, or at a file of its own beside it."""
    folder = db.parent
    if os.access(folder, os.W_OK):
        return None
    return DatabaseError(
        f"cannot write {db}: DuckDB keeps its write-ahead log ({wal_path(db).name}) "
        f"beside the database, and this user cannot write the folder {folder}. Make it "
        "writable, or move the database to a folder that is; read-only commands "
        "(`tracegrade sql`, `report`) work as they are"
    )


def _cannot_write(db: Path, message: str) -> str:
    unwritable = unwritable_folder(db)
    if unwritable is not None:
        return str(unwritable)
    return f"cannot write {db} ({message}): check the permissions of the file and its folder"
