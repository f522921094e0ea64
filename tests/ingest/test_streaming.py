"""`tracegrade ingest` reads files as streams within stated limits: a compression bomb, a huge
or deeply nested line, a file of many small records cost bounded memory and time, and
every good record around a bad one is kept."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
import zstandard

from tests.support.otlp import otlp_json, otlp_request
from tests.support.span_factory import adk_like_spans
from tests.support.tiers import costly
from tracegrade.exit_codes import ExitCode
from tracegrade.ingest import ingest_file
from tracegrade.ingest.stream import MIB, Limits
from tracegrade.store import SpanRow, SpanWriter, WriteResult

SPANS_PER_REQUEST = 2 * 5

# Runs the CLI in a child whose address space is capped, and reports its peak RSS (KiB)
# on stderr: a regression that inflates a file in memory fails, instead of taking the machine.
# VmHWM, not getrusage's ru_maxrss: Linux carries ru_maxrss over from the forking process
# (here pytest, 500+ MiB late in a full run) through exec; VmHWM is this process's own.
_MEASURED_CLI = """
import atexit, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
def peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return line.split()[1]
atexit.register(lambda: print("MAXRSS", peak(), file=sys.stderr))
from tracegrade.cli.main import app
sys.argv = ["tracegrade", *sys.argv[1:]]
app()
"""


def _lines(n: int) -> list[str]:
    return [otlp_json(otlp_request(adk_like_spans(2, seed=i + 1))) for i in range(n)]


def _count(writer: SpanWriter) -> int:
    row = writer.connection.execute("SELECT count(*) FROM spans").fetchone()
    assert row is not None
    return int(row[0])


def test_a_gzip_bomb_of_newlines_streams_in_bounded_memory(tmp_path: Path) -> None:
    # 1 MiB of gzip holding 1 GiB of newlines: main read it whole and split it into a
    # billion strings (10.4 GB). 128 copies of one member: making it costs 70 ms.
    bomb = tmp_path / "bomb.jsonl.gz"
    bomb.write_bytes(gzip.compress(b"\n" * (8 * MIB), 9) * 128)
    small = tmp_path / "small.jsonl"
    small.write_text("\n".join(_lines(2)) + "\n")
    baseline = _measured_ingest(tmp_path / "small.duckdb", small)
    assert baseline.returncode == 0, baseline.stderr
    done = _measured_ingest(tmp_path / "t.duckdb", bomb)
    assert done.returncode == ExitCode.USAGE_ERROR, done.stderr
    limit = 1000 * bomb.stat().st_size
    assert f"{bomb}:byte " in done.stderr
    assert f"inflates to more than {limit} bytes" in done.stderr
    # Against the same command on a small file, not a fixed figure: the start-up's RSS
    # differs by machine (125 MiB here, over 400 on a CI machine with more cores).
    growth_kib = _peak_rss_kib(done) - _peak_rss_kib(baseline)
    assert growth_kib < 128 * 1024, f"the bomb's peak RSS is {growth_kib} KiB over a small file's"


def _measured_ingest(db: Path, path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _MEASURED_CLI, "ingest", "--db", str(db), str(path)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def _peak_rss_kib(done: subprocess.CompletedProcess[str]) -> int:
    return int(done.stderr.split("MAXRSS ")[1].split()[0])


def test_a_zstd_bomb_stops_at_the_inflation_limit(tmp_path: Path, writer: SpanWriter) -> None:
    good = "\n".join(_lines(2)).encode() + b"\n"
    path = tmp_path / "bomb.jsonl.zst"
    path.write_bytes(zstandard.ZstdCompressor(level=19).compress(good + b"\n" * (256 * MIB)))
    limits = Limits(max_record_bytes=1 * MIB, max_inflation=100)
    assert limits.inflated_limit(path.stat().st_size) < 2 * MIB  # it compresses > 10,000x

    report = ingest_file(path, writer, limits)

    assert (report.records, report.stored) == (2, 2 * SPANS_PER_REQUEST)
    assert report.bad == 1
    assert "inflates to more than" in report.bad_records[0]


def test_a_deeply_nested_line_is_reported_and_the_lines_around_it_load(
    tmp_path: Path, writer: SpanWriter
) -> None:
    good = _lines(2)
    deep = '{"resourceSpans": ' + "[" * 5000 + "]" * 5000 + "}"
    path = tmp_path / "deep.jsonl"
    path.write_text("\n".join([deep, good[0], deep, good[1]]) + "\n")

    report = ingest_file(path, writer)  # main: RecursionError, nothing loaded

    assert (report.records, report.stored) == (2, 2 * SPANS_PER_REQUEST)
    assert [problem.split(": ")[:2] for problem in report.bad_records] == [
        [f"{path}:line 1", "not JSON"],
        [f"{path}:line 3", "not JSON"],
    ]
    assert _count(writer) == 2 * SPANS_PER_REQUEST


def test_a_line_over_the_limit_is_skipped_and_named(tmp_path: Path, writer: SpanWriter) -> None:
    good = _lines(2)
    path = tmp_path / "long.jsonl"
    path.write_text("\n".join([good[0], "x" * 50_000, "", good[1]]))

    report = ingest_file(path, writer, Limits(max_record_bytes=20_000))

    assert (report.records, report.stored) == (2, 2 * SPANS_PER_REQUEST)
    assert report.bad_records == [f"{path}:line 2: over the 20000 byte line limit"]


def test_a_record_over_the_limit_is_skipped_and_the_next_loads(
    tmp_path: Path, writer: SpanWriter
) -> None:
    small, big = (otlp_request(adk_like_spans(n, seed=n)).SerializeToString() for n in (1, 40))
    path = tmp_path / "records.bin"
    path.write_bytes(b"".join(len(r).to_bytes(4, "big") + r for r in (big, small)))

    report = ingest_file(path, writer, Limits(max_record_bytes=len(big) - 1))

    assert (report.records, report.stored, report.bad) == (1, 5, 1)
    assert "record 1 (byte 0)" in report.bad_records[0]
    assert "over the" in report.bad_records[0]


class _CountingWriter(SpanWriter):
    def __init__(self, writer: SpanWriter) -> None:
        super().__init__(writer.connection)
        self.writes = 0

    def write(self, rows: Sequence[SpanRow]) -> WriteResult:
        self.writes += 1
        return super().write(rows)


@costly
def test_many_small_records_are_committed_in_batches(tmp_path: Path, writer: SpanWriter) -> None:
    # Main committed once per line: 5,000 one-span lines took 22-31 s.
    request = otlp_request(adk_like_spans(1, seed=3))
    del request.resource_spans[0].scope_spans[0].spans[1:]
    document = json.loads(otlp_json(request))
    lines = []
    for i in range(5000):
        document["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["spanId"] = f"{i + 1:016x}"
        lines.append(json.dumps(document))
    path = tmp_path / "many.jsonl"
    path.write_text("\n".join(lines))
    counting = _CountingWriter(writer)

    report = ingest_file(path, counting)

    assert (report.records, report.stored) == (5000, 5000)
    assert counting.writes == 1
    assert _count(writer) == 5000


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
def test_ingest_reports_each_bad_line_and_exits_2(tmp_path: Path, compress: bool) -> None:
    good = _lines(2)
    text = "\n".join([good[0], "not json", good[1], '{"resourceSpans": 1}']) + "\n"
    path = tmp_path / ("t.jsonl.gz" if compress else "t.jsonl")
    path.write_bytes(gzip.compress(text.encode()) if compress else text.encode())
    env = {k: v for k, v in os.environ.items() if k != "TRACEGRADE_DB"}
    tracegrade = str(Path(sys.executable).with_name("tracegrade"))
    done = subprocess.run(
        [tracegrade, "ingest", "--db", str(tmp_path / "t.duckdb"), str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == ExitCode.USAGE_ERROR
    problems = [line for line in done.stderr.splitlines() if line.startswith(str(path))]
    assert [p.split(": ")[0] for p in problems] == [f"{path}:line 2", f"{path}:line 4"]
    assert done.stdout == (
        f"{path}: 2 records, {2 * SPANS_PER_REQUEST} spans stored, 0 already present, "
        "2 bad records\n"
    )
