"""Real `tracegrade serve --archive` processes: spans re-sent over OTLP after they were
archived are stored once, and a second database given the same archive and shard name is
refused at start while the first loses no acknowledged span."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExportResult

from tests.serve.helpers import Server, ids_of, start_server
from tests.support.archive import hot_count, stored_spans
from tests.support.span_factory import adk_like_spans

pytestmark = pytest.mark.slow
ARCHIVING = ["--retain-days", "0", "--archive-interval", "0.3"]


def _send(server: Server, spans: list[ReadableSpan]) -> None:
    exporter = OTLPSpanExporter(endpoint=server.traces_url, timeout=30)
    assert exporter.export(spans) == SpanExportResult.SUCCESS  # acknowledged: committed
    exporter.shutdown()  # type: ignore[no-untyped-call]


def _archived(server: Server) -> int:
    return int(server.rows("SELECT coalesce(sum(spans), 0) FROM archive_manifest")[0][0])


def _wait_archived(server: Server, count: int) -> None:
    deadline = time.monotonic() + 90
    while _archived(server) < count:
        assert time.monotonic() < deadline, server.stderr()
        time.sleep(0.2)


def test_spans_resent_after_serve_archived_them_are_stored_once(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    server = start_server(tmp_path, "--archive", str(archive), *ARCHIVING)
    try:
        spans = [s for seed in range(1, 5) for s in adk_like_spans(25, seed=seed, random_ids=True)]
        _send(server, spans)
        _wait_archived(server, len(spans))
        before = server.rows("SELECT turn_id, total_tokens FROM turns ORDER BY ALL")

        _send(server, spans)  # the Collector's retry, or a replay: every span again
        _send(server, spans[:7])
        time.sleep(1.5)  # several archiving passes

        assert sorted(server.ids()) == sorted(ids_of(spans))  # the `spans` view: each once
        assert _archived(server) == len(spans)  # nothing stored hot again, nor re-archived
        assert server.rows("SELECT turn_id, total_tokens FROM turns ORDER BY ALL") == before
        assert server.stop() == 0
    finally:
        server.kill()
    assert hot_count(server.db) == 0
    assert len(stored_spans(server.db, archive)) == len(spans)


def test_a_second_database_on_the_same_shard_is_refused_at_start(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    args = ["--archive", str(archive), *ARCHIVING]
    first = start_server(tmp_path, *args, db=tmp_path / "a.duckdb")
    try:
        spans = adk_like_spans(40, seed=3, random_ids=True)
        _send(first, spans[: len(spans) // 2])
        second = start_server(tmp_path, *args, db=tmp_path / "b.duckdb", wait=False)
        assert second.process.wait(60) == 2
        lines = second.stderr().strip().splitlines()
        owner = f"{tmp_path / 'a.duckdb'} (host {socket.gethostname()}, pid {first.process.pid})"
        assert lines[-1] == (
            f"tracegrade: archive {archive}: shard 's0' belongs to database {owner}: give each "
            "database its own --shard (if that database is gone for good, delete "
            f"{archive / '_shards' / 's0.owner'})"
        ), second.stderr()

        _send(first, spans[len(spans) // 2 :])
        _wait_archived(first, len(spans))
        assert sorted(first.ids()) == sorted(ids_of(spans))
        assert "archiving stopped" not in first.stderr()
        assert first.stop() == 0
    finally:
        first.kill()
    assert len(stored_spans(tmp_path / "a.duckdb", archive)) == len(spans)
    # with its own shard name, the second database archives beside the first
    other = start_server(tmp_path, *args, "--shard", "s1", db=tmp_path / "b.duckdb")
    try:
        _send(other, adk_like_spans(2, seed=9, random_ids=True))
        _wait_archived(other, 1)
        assert other.stop() == 0
    finally:
        other.kill()
