"""/health tells the truth about the store: a database that cannot be written is unavailable,
with the reason, until a write succeeds again."""

from __future__ import annotations

import resource
from pathlib import Path

from tests.support.span_factory import adk_like_spans

from .helpers import PROTOBUF, protobuf, start_server

FILE_LIMIT = 8 << 20


def _small_files() -> None:
    # A real write failure: the WAL cannot grow past this size (EFBIG; Python ignores SIGXFSZ).
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))


def test_health_reports_a_store_that_cannot_write(workdir: Path) -> None:
    server = start_server(workdir, preexec=_small_files)
    try:
        for seed in range(400):
            reply = server.post("/v1/traces", protobuf(adk_like_spans(100, seed=seed)), PROTOBUF)
            if reply.status != 200:
                break
        assert reply.status == 503, "the WAL never reached the file size limit"
        health = server.health()
        assert health.status == 503
        document = health.json()
        assert document["status"] == "unavailable"
        assert "cannot be written" in document["reason"]
        assert "File too large" in document["reason"]
        # A write that fits succeeds (DuckDB rolled the failed one back), and health recovers.
        assert (
            server.post("/v1/traces", protobuf(adk_like_spans(1, seed=999)), PROTOBUF).status == 200
        )
        assert server.health().json()["status"] == "ok"
    finally:
        server.stop()
