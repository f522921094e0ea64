"""What DuckDB's write-ahead log holds before it is replayed: whether it ends mid-entry.

DuckDB replays `<db>.wal` when it opens a database, then (writable) checkpoints and
deletes it. An entry whose checksum fails stops the open with an error; but a log that
ends in the middle of an entry is taken for a write cut short by a crash: DuckDB replays
the entries before it and drops the rest without a word. Measured: a log of 2,000 spans
cut in half came back as 850 spans, silently.

A process killed while writing does not leave that (DuckDB writes each entry with one
call: 6 of 6 logs of a writer killed with SIGKILL mid-stream ended on an entry boundary);
a power loss, a full disk or a file cut short by copying does. So a torn tail is worth a
loud warning. What this cannot see: a log cut exactly on an entry boundary, or entries
that never reached it; nor what the lost part held.

The framing read here is DuckDB's (storage version 2, DuckDB 1.x and 2.x): a header
object ending in 0xFFFF, then entries of [u64 size][u64 checksum][size bytes]. A log that
does not start that way is left unchecked.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

_VERSION_ENTRY = b"\x64\x00\x62\x65\x00"  # field 100 = 98 (WAL_VERSION), field 101 = ...
_HEADER_END = b"\xff\xff"
_ENTRY_HEAD = struct.Struct("<QQ")


@dataclass(frozen=True)
class LogState:
    path: Path
    size: int
    complete: int
    """Bytes up to the end of the last whole entry; equal to `size` for an intact log."""

    @property
    def torn(self) -> bool:
        return self.complete < self.size


def wal_path(db: Path) -> Path:
    return db.with_name(db.name + ".wal")


def inspect_log(db: Path) -> LogState | None:
    """The state of `db`'s log, or None: no log, an empty one, or a format not known here."""
    path = wal_path(db)
    try:
        with path.open("rb") as log:
            size = path.stat().st_size
            head = log.read(256)
            end = head.find(_HEADER_END)
            if not head.startswith(_VERSION_ENTRY) or end < 0:
                return None
            return LogState(path, size, _last_whole_entry(log, end + 2, size))
    except OSError:
        return None


def _last_whole_entry(log: BinaryIO, position: int, size: int) -> int:
    while position + _ENTRY_HEAD.size <= size:
        log.seek(position)
        length, _checksum = _ENTRY_HEAD.unpack(log.read(_ENTRY_HEAD.size))
        if length == 0 or position + _ENTRY_HEAD.size + length > size:
            break
        position += _ENTRY_HEAD.size + length
    return position
