"""Two `tracegrade serve` shards fed trace by trace (as the Collector's loadbalancing
exporter routes by trace id), archiving into one shared archive: afterwards the archive
holds every span once, each trace under one shard, and either server reads all of it."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExportResult

from tests.serve.helpers import Server, ids_of, start_server
from tests.support.span_factory import adk_like_spans
from tracegrade.store.archive_location import FILES_GLOB

pytestmark = pytest.mark.slow


@pytest.fixture
def shards(tmp_path: Path) -> Iterator[list[Server]]:
    archive = tmp_path / "archive"
    servers: list[Server] = []
    try:
        for shard in ("s0", "s1"):
            args = ["--archive", str(archive), "--shard", shard, "--retain-days", "0"]
            args += ["--archive-interval", "0.5"]
            servers.append(start_server(tmp_path, *args, db=tmp_path / f"{shard}.duckdb"))
        yield servers
    finally:
        for server in servers:
            server.stop()


def _by_trace(spans: list[ReadableSpan], shards: int) -> dict[int, list[ReadableSpan]]:
    """Every span of a trace to the same shard, as routing_key: traceID does."""
    routed: dict[int, list[ReadableSpan]] = defaultdict(list)
    for span in spans:
        assert span.context is not None
        routed[span.context.trace_id % shards].append(span)
    return routed


def _archived(server: Server) -> int:
    return int(server.rows("SELECT coalesce(sum(spans), 0) FROM archive_manifest")[0][0])


def _wait_archived(server: Server, count: int) -> None:
    deadline = time.monotonic() + 60
    while _archived(server) < count:
        assert time.monotonic() < deadline, server.stderr()
        time.sleep(0.2)


def test_two_shards_archive_every_span_once(shards: list[Server], tmp_path: Path) -> None:
    spans = [s for seed in range(1, 9) for s in adk_like_spans(4, seed=seed, random_ids=True)]
    routed = _by_trace(spans, len(shards))
    assert all(routed[i] for i in range(len(shards)))  # both shards get traffic
    for i, server in enumerate(shards):
        exporter = OTLPSpanExporter(endpoint=server.traces_url, timeout=30)
        assert exporter.export(routed[i]) == SpanExportResult.SUCCESS
        exporter.shutdown()  # type: ignore[no-untyped-call]
    for i, server in enumerate(shards):
        _wait_archived(server, len(routed[i]))
    # s0 reads its own (empty) hot table and the whole shared archive, s1's files included
    assert shards[0].rows("SELECT count(*) FROM spans") == [[len(spans)]]
    assert shards[0].rows("SELECT count(*) FROM turns") == [[4 * 8]]
    for server in shards:
        assert server.stop() == 0

    connection = duckdb.connect()
    rows = connection.execute(
        "SELECT trace_id, span_id, shard FROM read_parquet(?, hive_partitioning = true)",
        [str(tmp_path / "archive" / FILES_GLOB)],
    ).fetchall()
    assert sorted((t, s) for t, s, _ in rows) == sorted(ids_of(spans))
    shard_of: dict[str, set[str]] = defaultdict(set)
    for trace_id, _, shard in rows:
        shard_of[trace_id].add(shard)
    assert all(len(names) == 1 for names in shard_of.values())
    assert {f"s{int(t, 16) % 2}" for t in shard_of} == {"s0", "s1"}
    assert all(shard_of[t] == {f"s{int(t, 16) % 2}"} for t in shard_of)
