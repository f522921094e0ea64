"""Trace files into the store: `tracegrade ingest FILE...`.

Reads what the OpenTelemetry Collector's `file` exporter writes, in each of its forms:
one OTLP/JSON request per line; length-prefixed records (4-byte big-endian size) of
protobuf or JSON, each optionally zstd-compressed; a whole file compressed with zstd or
gzip. A single pretty-printed OTLP/JSON document works too, and so do the JSON exports of
Jaeger and Grafana Tempo, told apart by their content (see `exports`).

Files are streamed (see `stream` for the limits), never read whole. A bad record is
reported with its file and line (or record number) and the good ones still load; a bad
span inside a good record is refused alone, as `serve` refuses it. Rows are written in
batches of up to `BATCH_SPANS`, through the one writer: a commit costs ~5 ms whatever
it holds, so a file of one-span lines committed line by line took 22-31 s for 5,000.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import zstandard

from tracegrade.errors import DatabaseError, IngestError
from tracegrade.ingest.otlp import Decoded, decode_protobuf
from tracegrade.ingest.otlp_json import decode_json_export
from tracegrade.ingest.records import read_records
from tracegrade.ingest.stream import ZSTD_MAGIC, Limits
from tracegrade.store.rows import SpanRow
from tracegrade.store.writer import SpanWriter

BATCH_SPANS = 16_384
"""Spans per commit: as serve's group commits."""
MAX_REPORTED = 1_000
"""Bad records listed per file; the rest are counted."""

# Errors that come from the rows themselves: the same rows would fail again.
_DATA_ERRORS = (duckdb.ConversionException, duckdb.InvalidInputException)


@dataclass
class FileReport:
    """What loading one file did."""

    path: Path
    records: int = 0
    stored: int = 0
    duplicates: int = 0
    rejected_spans: int = 0
    """Spans refused inside records that were read."""
    bad: int = 0
    """Records that could not be read, decoded or stored."""
    bad_records: list[str] = field(default_factory=list)
    """`file:line: reason` for each bad record and refused span, the first MAX_REPORTED."""
    unlisted: int = 0
    """Problems past MAX_REPORTED, counted only."""

    @property
    def ok(self) -> bool:
        return not self.bad and not self.rejected_spans

    def bad_record(self, where: str, reason: str) -> None:
        self.bad += 1
        self.problem(where, reason)

    def problem(self, where: str, reason: str) -> None:
        if len(self.bad_records) < MAX_REPORTED:
            self.bad_records.append(f"{self.path}:{where}: {reason}")
        else:
            self.unlisted += 1


def ingest_files(
    paths: Sequence[str | Path], writer: SpanWriter, limits: Limits | None = None
) -> list[FileReport]:
    return [ingest_file(Path(path), writer, limits) for path in paths]


def ingest_file(path: Path, writer: SpanWriter, limits: Limits | None = None) -> FileReport:
    limits = limits or Limits()
    report = FileReport(path)
    batch = _Batch(writer, report)
    for where, record in read_records(path, limits):
        decoded = _decode_record(record, limits) if isinstance(record, bytes) else record
        if isinstance(decoded, str):
            report.bad_record(where, decoded)
            continue
        report.records += 1
        report.rejected_spans += decoded.rejected
        for reason in decoded.reasons:
            report.problem(where, reason)
        batch.add(where, decoded.rows)
    batch.write()
    return report


def _decode_record(record: bytes, limits: Limits) -> Decoded | str:
    try:
        if record.startswith(ZSTD_MAGIC):
            record = _unzstd(record, limits.max_record_bytes)
        if record.lstrip()[:1] == b"{":
            return decode_json_export(record, "file")
        return decode_protobuf(record, "file")
    except (IngestError, zstandard.ZstdError) as exc:
        return str(exc)


def _unzstd(record: bytes, limit: int) -> bytes:
    with zstandard.ZstdDecompressor().stream_reader(record, read_across_frames=True) as reader:
        data = reader.read(limit + 1)
    if len(data) > limit:
        raise IngestError(f"decompresses to more than the {limit} byte record limit")
    return data


class _Batch:
    """Rows of several records, written together; a batch the database refuses is written
    again record by record, so only the records to blame are reported."""

    def __init__(self, writer: SpanWriter, report: FileReport) -> None:
        self._writer = writer
        self._report = report
        self._records: list[tuple[str, list[SpanRow]]] = []
        self._spans = 0

    def add(self, where: str, rows: list[SpanRow]) -> None:
        self._records.append((where, rows))
        self._spans += len(rows)
        if self._spans >= BATCH_SPANS:
            self.write()

    def write(self) -> None:
        records, self._records, self._spans = self._records, [], 0
        try:
            self._store([row for _, rows in records for row in rows])
        except _DATA_ERRORS:
            for where, rows in records:
                try:
                    self._store(rows)
                except _DATA_ERRORS as exc:
                    self._report.bad_record(where, f"could not be stored: {exc}")

    def _store(self, rows: list[SpanRow]) -> None:
        try:
            result = self._writer.write(rows)
        except duckdb.Error as exc:
            if isinstance(exc, _DATA_ERRORS):
                raise
            raise DatabaseError(f"writing spans failed: {exc}") from None
        self._report.stored += result.stored
        self._report.duplicates += result.duplicates
