"""The records of a trace file, read one at a time: JSON lines, length-prefixed, or one document.

Each record comes with where it is ("line 3", "record 2 (byte 512)") and its bytes, or
with why it cannot be read. A record over the size limit is skipped without being held
and reported; a limit or corruption that stops the file is reported where it happened,
after every record before it.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from pathlib import Path

from tracegrade.errors import IngestError
from tracegrade.ingest.stream import Limits, Source

Record = tuple[str, bytes | str]
"""Where a record is, and its bytes or why it cannot be read."""

_BLANK = re.compile(rb"[ \t\r\n]*")
_JSON_START = (b"{", b"[", b" ", b"\n", b"\r", b"\t")


def read_records(path: Path, limits: Limits) -> Iterator[Record]:
    with Source(path, limits) as source:
        try:
            head = source.peek(5)
            if _looks_length_prefixed(head, source.most_bytes):
                yield from _length_prefixed(source, limits)
            else:
                yield from _json(path, source, limits)
        except IngestError as exc:
            yield f"byte {source.position}", str(exc)


def _looks_length_prefixed(head: bytes, most_bytes: int) -> bool:
    """Text never starts with a size that fits the file (a protobuf record's starts with 0)."""
    if len(head) < 5 or head[:1] in _JSON_START:
        return False
    return 0 < int.from_bytes(head[:4], "big") <= most_bytes - 4


def _length_prefixed(source: Source, limits: Limits) -> Iterator[Record]:
    number = 0
    while prefix := source.read(4):
        number += 1
        where = f"record {number} (byte {source.position - len(prefix)})"
        size = int.from_bytes(prefix, "big")
        if len(prefix) < 4:
            yield where, f"truncated: {len(prefix)} bytes where a 4-byte size belongs"
            return
        if size > limits.max_record_bytes:
            present = source.skip(size)
            yield where, f"{size} bytes, over the {limits.max_record_bytes} byte record limit"
        else:
            record = source.read(size)
            present = len(record)
            yield where, record if present == size else f"truncated: {size} bytes announced"
        if present < size:
            return


def _json(path: Path, source: Source, limits: Limits) -> Iterator[Record]:
    lines = _lines(source.chunks(), limits.max_record_bytes)
    first = next(lines, None)
    if first is None:
        return
    if first[1] is not None and not _parses(first[1]):
        document = _single_document(path, first[1], limits)
        if document is not None:
            yield f"line {first[0]}", document
            return
    for number, line in itertools.chain([first], lines):
        yield (
            f"line {number}",
            (line if line is not None else f"over the {limits.max_record_bytes} byte line limit"),
        )


def _lines(chunks: Iterator[bytes], max_line: int) -> Iterator[tuple[int, bytes | None]]:
    """Each line that is not blank, with its number; None for one longer than `max_line`.

    Blank runs are skipped and counted by regex and `count` rather than line by line, so a
    file of a billion newlines costs what reading it costs.
    """
    number, start = 1, 1
    pending = bytearray()
    over = False
    for data in chunks:
        position = 0
        while position < len(data):
            if not pending and not over:
                blank_end = _blank_end(data, position)
                number += data.count(b"\n", position, blank_end)
                position, start = blank_end, number
                if position == len(data):
                    break
            newline = data.find(b"\n", position)
            end = len(data) if newline < 0 else newline
            if not over:
                pending += data[position:end]
                over = len(pending) > max_line
                if over:
                    pending.clear()
            if newline < 0:
                break
            yield start, None if over else bytes(pending)
            pending.clear()
            over = False
            number += 1
            position = newline + 1
    if pending or over:
        yield start, None if over else bytes(pending)


def _blank_end(data: bytes, position: int) -> int:
    match = _BLANK.match(data, position)
    return match.end() if match else position


def _parses(line: bytes) -> bool:
    try:
        json.loads(line)
    except (ValueError, RecursionError):
        return False
    return True


def _single_document(path: Path, first_line: bytes, limits: Limits) -> bytes | str | None:
    """The whole file if it is one (pretty-printed) JSON document, why not if it looks like
    one that is too big; else None: it is JSON lines, the first of them bad."""
    with Source(path, limits) as source:
        data = source.read(limits.max_record_bytes + 1)
    if len(data) <= limits.max_record_bytes:
        return data if _parses(data) else None
    if first_line.strip() in (b"{", b"["):
        return (
            "a pretty-printed JSON document (not JSON lines) over the "
            f"{limits.max_record_bytes} byte record limit"
        )
    return None
