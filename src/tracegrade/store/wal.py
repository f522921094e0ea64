"""DuckDB's write-ahead log, checked whole before DuckDB replays it.

DuckDB replays `<db>.wal` when it opens a database, then (writable) checkpoints and
deletes it. What it does with a damaged log, measured on DuckDB 2.0.1 with a log of
2,000 spans: an entry whose checksum fails stops the open with an error; but a header it
cannot read (zeroed, garbage) makes it replay nothing, and an entry that runs past the
log's end (a log cut short, or garbage in an entry's size) makes it replay the commits
before it, as does a last commit cut short between entries: all without a word, and a
writable open then deletes the log. So the log is
read here first, all of it, as DuckDB reads it.

The framing (storage version 2, DuckDB 1.x and 2.x): a header object (the WAL_VERSION
entry: fields 100 = 98, 101 = 2, an optional 102 = the database's 16-byte identifier, an
optional 103 = its checkpoint iteration, then 0xFFFF), then entries of
[u64 size][u64 checksum][size bytes], each commit closed by a WAL_FLUSH entry. The
checksum is DuckDB's `Checksum` (src/common/checksum.cpp). A process killed while writing
leaves whole commits (14 of 14 logs of writers killed with SIGKILL mid-stream, commits of
50 to 5,000 spans, ended on a WAL_FLUSH); a power loss, a full disk, a copy cut short or
a damaged disk do not. Version 1 (no checksums) and 3 (encrypted) logs are left to DuckDB.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

_HEADER_START = b"\x64\x00\x62\x65\x00"  # field 100 = 98 (WAL_VERSION), field 101 = ...
_VERSION_CHECKED = 2
_HEADER_MAX = 64
MINIMAL_HEADER = _HEADER_START + b"\x02\xff\xff"
"""Version 2 without the database's identifier and checkpoint iteration, which DuckDB then
does not compare with the file's (wal_replay.cpp, ReplayVersion)."""
_ENTRY_HEAD = struct.Struct("<QQ")
_FLUSH = b"\x64\x00\x64\xff\xff"  # field 100 = 100 (WAL_FLUSH), end of object
_MASK = (1 << 64) - 1


@dataclass(frozen=True)
class LogDamage:
    path: Path
    size: int
    what: str
    """What is wrong, and where: "its header is not ...", "the entry at byte 9 fails ..."."""
    intact: int
    """Bytes up to the end of the last whole commit before the damage; 0: none can be kept
    (the header is damaged)."""
    commits: int
    """Whole commits before the damage (after a damaged header: from `entries_from` on)."""
    entries_from: int = 0
    """Where whole entries start after a damaged header, all of them whole to the last
    commit's end: `MINIMAL_HEADER` put in its place replays them all; 0: none found."""


def wal_path(db: Path) -> Path:
    return db.with_name(db.name + ".wal")


def check_log(db: Path) -> LogDamage | None:
    """What is wrong with `db`'s log, or None: no log, an empty or intact one, or a
    version checked by DuckDB alone."""
    path = wal_path(db)
    try:
        with path.open("rb") as log:
            size = path.stat().st_size
            return _check(log, path, size) if size else None
    except FileNotFoundError:
        return None


def _check(log: BinaryIO, path: Path, size: int) -> LogDamage | None:
    head = log.read(_HEADER_MAX)
    version = head[len(_HEADER_START)] if head.startswith(_HEADER_START) else None
    if version is not None and version != _VERSION_CHECKED:
        return None
    end = _header_end(head) if version is not None else None
    if end is not None:
        what, intact, commits = _walk(log, size, end)
        return None if what is None else LogDamage(path, size, what, intact, commits)
    what = f"its header is not the one DuckDB writes: it starts {head[:8].hex(' ', 2)}"
    start = _first_entry(log, size)
    if start:
        rest, _intact, commits = _walk(log, size, start)
        if rest is None:  # else damaged there too: the header's is the one named
            return LogDamage(path, size, what, intact=0, commits=commits, entries_from=start)
    return LogDamage(path, size, what, intact=0, commits=0)


def _first_entry(log: BinaryIO, size: int) -> int:
    """Where the first entry starts after a damaged header: the first place whose entry's
    checksum matches (garbage matching a 64-bit checksum is not a risk), or 0."""
    for position in range(len(MINIMAL_HEADER), min(_HEADER_MAX, size - _ENTRY_HEAD.size)):
        log.seek(position)
        length, stored = _ENTRY_HEAD.unpack(log.read(_ENTRY_HEAD.size))
        if position + _ENTRY_HEAD.size + length <= size and checksum(log.read(length)) == stored:
            return position
    return 0


def _header_end(head: bytes) -> int | None:
    """Where the header object ends, or None if it is not the one DuckDB writes."""
    position = len(_HEADER_START) + 1
    try:
        if head[position : position + 2] == b"\x66\x00":  # 102: a list of 16 bytes
            position, count = _varint(head, position + 2)
            for _ in range(count):
                position, _byte = _varint(head, position)
        if head[position : position + 2] == b"\x67\x00":  # 103: the checkpoint iteration
            position, _iteration = _varint(head, position + 2)
    except IndexError:
        return None
    return position + 2 if head[position : position + 2] == b"\xff\xff" else None


def _varint(data: bytes, position: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return position, value


def _walk(log: BinaryIO, size: int, position: int) -> tuple[str | None, int, int]:
    """What is wrong with the entries from `position` on (None: nothing), where the last
    whole commit before it ends, and how many whole commits there are."""
    intact, commits = position, 0
    log.seek(position)
    while position < size:
        head = log.read(_ENTRY_HEAD.size).ljust(_ENTRY_HEAD.size, b"\0")
        length, stored = _ENTRY_HEAD.unpack(head)
        end = position + _ENTRY_HEAD.size + length
        if end > size:
            return _cut_or_garbage(position, length, size), intact, commits
        payload = log.read(length)
        if checksum(payload) != stored:
            return f"the entry at byte {position} fails its checksum", intact, commits
        position = end
        if payload == _FLUSH:
            intact, commits = position, commits + 1
    if intact < size:
        what = f"its last commit, from byte {intact}, has no end (the log was cut short)"
        return what, intact, commits
    return None, intact, commits


def _cut_or_garbage(position: int, length: int, size: int) -> str:
    if length > size:  # no write cut short says this: the size itself is garbage
        return f"the entry at byte {position} claims {length} bytes, more than the whole log"
    return f"it ends in the middle of the entry at byte {position}"


def checksum(data: bytes) -> int:
    """DuckDB's `Checksum`: each whole u64 multiplied and xor-ed in, then the 0-7 bytes
    left over hashed as one (its `ChecksumRemainder`)."""
    words = len(data) // 8
    result = 5381
    if words:
        import numpy as np  # only where a log is there to check: not for every open

        values = np.frombuffer(data, dtype="<u8", count=words) * np.uint64(0xBF58476D1CE4E5B9)
        result ^= int(np.bitwise_xor.reduce(values))
    if len(data) % 8:
        result ^= _remainder(data[words * 8 :])
    return result


def _remainder(tail: bytes) -> int:
    m = 0xC6A4A7935BD1E995
    h = 0xE17A1465 ^ (len(tail) * m & _MASK)
    h ^= int.from_bytes(tail, "little")
    h = h * m & _MASK
    h ^= h >> 47
    h = h * m & _MASK
    return h ^ (h >> 47)
