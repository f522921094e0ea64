"""Trace files in every form the Collector's file exporter writes, and bad ones."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest
import zstandard

from tests.support.otlp import otlp_json, otlp_request
from tests.support.span_factory import adk_like_spans
from tracegrade.errors import IngestError
from tracegrade.ingest import ingest_file
from tracegrade.store import SpanWriter


def _requests(n: int = 3) -> list[bytes]:
    return [otlp_request(adk_like_spans(2, seed=i + 1)).SerializeToString() for i in range(n)]


def _json_lines(n: int = 3) -> list[str]:
    return [otlp_json(otlp_request(adk_like_spans(2, seed=i + 1))) for i in range(n)]


def _prefixed(records: list[bytes]) -> bytes:
    return b"".join(len(r).to_bytes(4, "big") + r for r in records)


def _count(writer: SpanWriter) -> int:
    row = writer.connection.execute("SELECT count(*) FROM spans").fetchone()
    assert row is not None
    return int(row[0])


SPANS_PER_REQUEST = 2 * 5  # two turns of workflow, agent, model, tool, model


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(lambda: "\n".join(_json_lines()).encode() + b"\n", id="json-lines"),
        pytest.param(
            lambda: gzip.compress("\n".join(_json_lines()).encode()), id="json-lines-gzip"
        ),
        pytest.param(
            lambda: b"".join(
                zstandard.ZstdCompressor().compress(line.encode() + b"\n") for line in _json_lines()
            ),
            id="json-lines-zstd-frames",
        ),
        pytest.param(lambda: _prefixed(_requests()), id="proto-length-prefixed"),
        pytest.param(
            lambda: _prefixed([zstandard.ZstdCompressor().compress(r) for r in _requests()]),
            id="proto-zstd-per-record",
        ),
        pytest.param(
            lambda: _prefixed(
                [zstandard.ZstdCompressor().compress(j.encode()) for j in _json_lines()]
            ),
            id="json-zstd-per-record",
        ),
    ],
)
def test_every_collector_file_form_loads(content, tmp_path: Path, writer: SpanWriter) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "traces.out"
    path.write_bytes(content())
    report = ingest_file(path, writer)
    assert report.bad_records == []
    assert report.records == 3
    assert report.stored == 3 * SPANS_PER_REQUEST == _count(writer)


def test_pretty_printed_single_document(tmp_path: Path, writer: SpanWriter) -> None:
    import json

    path = tmp_path / "one.json"
    path.write_text(json.dumps(json.loads(_json_lines(1)[0]), indent=2))
    report = ingest_file(path, writer)
    assert (report.records, report.stored, report.bad_records) == (1, SPANS_PER_REQUEST, [])


def test_bad_lines_are_named_and_good_lines_load(tmp_path: Path, writer: SpanWriter) -> None:
    good = _json_lines(2)
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join([good[0], '{"resourceSpans": [', "", '{"hello": 1}', good[1]]) + "\n")
    report = ingest_file(path, writer)
    assert report.records == 2
    assert report.stored == 2 * SPANS_PER_REQUEST
    assert [line.split(": ", 2)[0:2] for line in report.bad_records] == [
        [f"{path}:line 2", "not JSON"],
        [
            f"{path}:line 4",
            "neither an OTLP/JSON request ('resourceSpans') nor a Jaeger ('data') or Tempo"
            " ('batches', 'trace') export",
        ],
    ]


def test_reingesting_adds_nothing(tmp_path: Path, writer: SpanWriter) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(_json_lines()))
    first = ingest_file(path, writer)
    again = ingest_file(path, writer)
    assert first.stored == 3 * SPANS_PER_REQUEST
    assert (again.stored, again.duplicates) == (0, 3 * SPANS_PER_REQUEST)
    assert _count(writer) == 3 * SPANS_PER_REQUEST


def test_truncated_record_is_reported(tmp_path: Path, writer: SpanWriter) -> None:
    data = _prefixed(_requests(2))
    path = tmp_path / "cut.bin"
    path.write_bytes(data[:-10])
    report = ingest_file(path, writer)
    assert report.records == 1
    assert len(report.bad_records) == 1
    assert "record 2" in report.bad_records[0]
    assert "truncated" in report.bad_records[0]


def test_invalid_span_ids_are_rejected_not_stored(tmp_path: Path, writer: SpanWriter) -> None:
    request = otlp_request(adk_like_spans(1))
    request.resource_spans[0].scope_spans[0].spans[0].trace_id = b"\x00" * 16
    path = tmp_path / "bad-id.bin"
    path.write_bytes(_prefixed([request.SerializeToString()]))
    report = ingest_file(path, writer)
    assert report.rejected_spans == 1
    assert report.stored == SPANS_PER_REQUEST // 2 - 1
    assert "trace_id must be 16 bytes" in report.bad_records[0]


def test_missing_file_is_a_clear_error(tmp_path: Path, writer: SpanWriter) -> None:
    with pytest.raises(IngestError, match=r"cannot read .*nope\.jsonl: No such file"):
        ingest_file(tmp_path / "nope.jsonl", writer)


def test_corrupt_compressed_file_is_reported(tmp_path: Path, writer: SpanWriter) -> None:
    path = tmp_path / "t.jsonl.gz"
    path.write_bytes(gzip.compress(b"x" * 100)[:-8] + b"garbage!")
    report = ingest_file(path, writer)
    assert report.records == 0
    assert len(report.bad_records) == 1
    assert re.fullmatch(
        rf"{path}:byte \d+: corrupt compressed data: CRC check failed.*", report.bad_records[0]
    )
