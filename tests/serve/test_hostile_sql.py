"""Hostile text through every field of every endpoint: refused with a 4xx and the reason,
nothing written, no file read, and the server still serving."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.hostile_sql import CONDITIONS, QUERIES, SECRET_TEXT, fill, make_secret
from tests.support.paths import DATA
from tests.support.span_factory import adk_like_spans

from .helpers import JSON, PROTOBUF, Server, protobuf, start_server

TRAFFIC = [DATA / "traces" / f"adk_v2_{x}.otlp.jsonl" for x in "abc"]
DEEP = 100_000


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path, Path]]:
    """A server holding traffic turns, a secret file beside it, and a path never to write."""
    folder = tmp_path_factory.mktemp("hostile-serve")
    server = start_server(folder)
    for path in TRAFFIC:
        for line in path.read_text().splitlines():
            assert server.post("/v1/traces", line.encode(), JSON).status == 200
    yield server, make_secret(folder), folder / "out"
    server.stop()


def state(server: Server) -> dict[str, Any]:
    """A fingerprint of everything a write would change."""
    spans = server.rows("SELECT * FROM spans ORDER BY trace_id, span_id")
    return {
        "spans": hashlib.sha256(json.dumps(spans).encode()).hexdigest(),
        "count": len(spans),
        "tables": server.rows("SELECT table_name FROM duckdb_tables() ORDER BY 1"),
        "scorings": server.rows("SELECT count(*) FROM scorings"),
    }


@pytest.fixture
def unchanged(target: tuple[Server, Path, Path]) -> Iterator[None]:
    server, _, out = target
    before = state(server)
    assert before["count"] > 0
    yield
    assert state(server) == before
    assert not out.exists()
    assert server.health().status == 200
    spans = adk_like_spans(1, seed=len(before["spans"]))
    assert server.post("/v1/traces", protobuf(spans), PROTOBUF).status == 200


def refused(server: Server, path: str, document: Any, statuses: tuple[int, ...] = (400,)) -> str:
    body = document if isinstance(document, bytes) else json.dumps(document).encode()
    reply = server.post(path, body, JSON)
    assert reply.status in statuses, (reply.status, reply.body[:300])
    error: str = reply.json()["error"]
    assert error
    assert SECRET_TEXT.encode() not in reply.body
    return error


@pytest.mark.usefixtures("unchanged")
@pytest.mark.parametrize("condition", CONDITIONS, ids=range(len(CONDITIONS)))
def test_score_refuses_a_hostile_where(target: tuple[Server, Path, Path], condition: str) -> None:
    server, secret, out = target
    error = refused(server, "/v1/score", {"where": fill(condition, secret, out)})
    assert error.startswith("where "), error


@pytest.mark.usefixtures("unchanged")
@pytest.mark.parametrize(
    "request_",
    [
        {"since_s": "abc"},
        {"since_s": "1); DELETE FROM spans; SELECT (1"},
        {"since_s": -1},
        {"since_s": [1]},
        b'{"since_s": Infinity}',
        b'{"since_s": NaN}',
        {"sample": "0.5; DROP TABLE spans"},
        {"sample": 2},
        {"sample": True},
        {"run_id": "x'; DELETE FROM spans; --"},
        {"run_id": 7},
        {"where": 7},
        {"where": ["true"]},
        {"config": "DELETE FROM spans"},
        {"config": {"criteria": {"x); DELETE FROM spans; --": 1}}},
        {"drop": "spans"},
        {"where": "user_text = '\ud800'"},
        b"[" * DEEP + b"]" * DEEP,
        b'{"where": ' + b"[" * DEEP + b"]" * DEEP + b"}",
        b"\xff\xfe not json",
    ],
    ids=range(20),
)
def test_score_refuses_hostile_fields(target: tuple[Server, Path, Path], request_: Any) -> None:
    refused(target[0], "/v1/score", request_)


@pytest.mark.usefixtures("unchanged")
@pytest.mark.parametrize("query", QUERIES, ids=range(len(QUERIES)))
def test_sql_refuses_a_hostile_query(target: tuple[Server, Path, Path], query: str) -> None:
    server, secret, out = target
    refused(server, "/v1/sql", {"sql": fill(query, secret, out)}, (400, 403))


@pytest.mark.usefixtures("unchanged")
@pytest.mark.parametrize(
    "request_",
    [
        {"sql": "SELECT ?", "params": ["\ud800"]},
        {"sql": "SELECT 1", "limit": "1; DELETE FROM spans"},
        {"sql": "SELECT 1", "params": "'); DELETE FROM spans; --"},
        {"sql": ["DELETE FROM spans"]},
        b'{"sql": ' + b"[" * DEEP + b"]" * DEEP + b"}",
        b"[" * DEEP + b"]" * DEEP,
    ],
    ids=range(6),
)
def test_sql_refuses_hostile_fields(target: tuple[Server, Path, Path], request_: Any) -> None:
    refused(target[0], "/v1/sql", request_)


@pytest.mark.usefixtures("unchanged")
def test_parameters_are_values_never_sql(target: tuple[Server, Path, Path]) -> None:
    server = target[0]
    text = "'); DELETE FROM spans; SELECT ('"
    assert server.rows("SELECT ?::VARCHAR AS v", [text]) == [[text]]


def test_sql_in_span_data_is_stored_as_data(target: tuple[Server, Path, Path]) -> None:
    server = target[0]
    before = state(server)["count"]
    spans = adk_like_spans(1, seed=977)
    reply = server.post("/v1/traces", protobuf(spans), PROTOBUF)
    assert reply.status == 200
    name = "'); DELETE FROM spans; --"
    document = json.loads(TRAFFIC[0].read_text().splitlines()[0])
    span = document["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    span.update(name=name, spanId="ab" * 8)
    assert server.post("/v1/traces", json.dumps(document).encode(), JSON).status == 200
    assert server.rows("SELECT name FROM spans WHERE span_id = ?", ["ab" * 8]) == [[name]]
    assert state(server)["count"] == before + len(spans) + 1
