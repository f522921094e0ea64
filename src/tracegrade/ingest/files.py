"""Trace files into the store: `tracegrade ingest FILE...`.

Reads what the OpenTelemetry Collector's `file` exporter writes, in each of its forms:
one OTLP/JSON request per line; length-prefixed records (4-byte big-endian size) of
protobuf or JSON, each optionally zstd-compressed; a whole file compressed with zstd or
gzip. A single pretty-printed OTLP/JSON document works too. A bad record is reported
with its file and line (or record number) and the good ones still load.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import zstandard

from tracegrade.errors import IngestError
from tracegrade.ingest.otlp import Decoded, decode_protobuf
from tracegrade.ingest.otlp_json import decode_json
from tracegrade.store.writer import SpanWriter

_GZIP = b"\x1f\x8b"
_ZSTD = b"\x28\xb5\x2f\xfd"


@dataclass
class FileReport:
    """What loading one file did."""

    path: Path
    records: int = 0
    stored: int = 0
    duplicates: int = 0
    rejected_spans: int = 0
    bad_records: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.bad_records and not self.rejected_spans


def ingest_files(paths: Sequence[str | Path], writer: SpanWriter) -> list[FileReport]:
    return [ingest_file(Path(path), writer) for path in paths]


def ingest_file(path: Path, writer: SpanWriter) -> FileReport:
    report = FileReport(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise IngestError(f"cannot read {path}: {exc.strerror or exc}") from None
    for where, result in decode_file(data):
        if isinstance(result, str):
            report.bad_records.append(f"{path}:{where}: {result}")
            continue
        report.records += 1
        report.rejected_spans += result.rejected
        report.bad_records.extend(f"{path}:{where}: {reason}" for reason in result.reasons)
        written = writer.write(result.rows)
        report.stored += written.stored
        report.duplicates += written.duplicates
    return report


def decode_file(data: bytes) -> Iterator[tuple[str, Decoded | str]]:
    """Each record's location ("line 3", "record 2") with its spans, or why it failed."""
    data = _decompress_whole(data)
    if _looks_length_prefixed(data):
        yield from _length_prefixed(data)
    else:
        yield from _json_lines(data)


def _decompress_whole(data: bytes) -> bytes:
    try:
        if data.startswith(_GZIP):
            return gzip.decompress(data)
        if data.startswith(_ZSTD):
            return _zstd(data)
    except (OSError, EOFError, zstandard.ZstdError) as exc:
        raise IngestError(f"corrupt compressed file: {exc}") from None
    return data


def _zstd(data: bytes) -> bytes:
    # Several concatenated frames are normal here (the Collector writes one per flush).
    reader = zstandard.ZstdDecompressor().stream_reader(data, read_across_frames=True)
    with reader:
        return reader.read()


def _looks_length_prefixed(data: bytes) -> bool:
    if len(data) < 5 or data[:1] in (b"{", b"[", b" ", b"\n", b"\r", b"\t"):
        return False
    size = int.from_bytes(data[:4], "big")
    return 0 < size <= len(data) - 4


def _length_prefixed(data: bytes) -> Iterator[tuple[str, Decoded | str]]:
    offset, number = 0, 0
    while offset < len(data):
        number += 1
        where = f"record {number} (byte {offset})"
        size = int.from_bytes(data[offset : offset + 4], "big")
        record = data[offset + 4 : offset + 4 + size]
        if len(record) < size or offset + 4 > len(data):
            yield where, f"truncated: {size} bytes announced, {len(record)} present"
            return
        offset += 4 + size
        yield where, _decode_record(record)


def _decode_record(record: bytes) -> Decoded | str:
    try:
        if record.startswith(_ZSTD):
            record = zstandard.ZstdDecompressor().decompress(record)
        if record[:1] == b"{":
            return decode_json(record, "file")
        return decode_protobuf(record, "file")
    except (IngestError, zstandard.ZstdError) as exc:
        return str(exc)


def _json_lines(data: bytes) -> Iterator[tuple[str, Decoded | str]]:
    text = data.decode("utf-8", errors="replace")
    lines = text.splitlines()
    if len(lines) > 1 and _is_single_document(text, lines[0]):
        yield "line 1", _decode_json_text(text)
        return
    for number, line in enumerate(lines, start=1):
        if line.strip():
            yield f"line {number}", _decode_json_text(line)


def _is_single_document(text: str, first_line: str) -> bool:
    """A pretty-printed document: its first line alone is not JSON, the whole file is."""
    try:
        json.loads(first_line)
        return False
    except ValueError:
        pass
    try:
        json.loads(text)
        return True
    except ValueError:
        return False


def _decode_json_text(text: str) -> Decoded | str:
    try:
        return decode_json(text, "file")
    except IngestError as exc:
        return str(exc)
