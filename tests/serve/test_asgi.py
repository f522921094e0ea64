"""The ASGI application and the SQL answer on their own, where a real client cannot make the
timing exact: a body slower than its deadline, an answer over its byte cap, encoding past
the request's deadline."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import duckdb
import pytest

from tracegrade.server import encoding
from tracegrade.server import sql as sql_module
from tracegrade.server.asgi import HttpApp, Message
from tracegrade.server.messages import RequestHead, Response
from tracegrade.server.sql import ReadOnlyQueries, SqlFailed
from tracegrade.store.readonly import lock_down


class CountingEndpoints:
    """Stands in for routes.Endpoints, whose real parts (receiver, writer) these tests do not
    reach: it admits every request and counts the in-flight budget taken and given back."""

    def __init__(self) -> None:
        self.reserved = 0
        self.handled: list[bytes] = []

    def admit(self, head: RequestHead) -> Response | int:
        return 1 << 20

    def reserve(self, size: int) -> Response | None:
        self.reserved += size
        return None

    def release(self, size: int) -> None:
        self.reserved -= size

    async def handle(self, head: RequestHead, body: bytes, gone: asyncio.Event) -> Response:
        self.handled.append(body)
        return Response(200, b"{}")

    def answered(self, head: RequestHead, status: int) -> None:
        pass


SCOPE = {"type": "http", "method": "POST", "path": "/v1/traces", "headers": []}


def run(app: HttpApp, chunks: list[bytes], then_wait: bool) -> list[Message]:
    sent: list[Message] = []

    async def receive() -> Message:
        if chunks:
            return {"type": "http.request", "body": chunks.pop(0), "more_body": True}
        if then_wait:
            await asyncio.sleep(3600)  # a client that stopped sending its body
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    asyncio.run(app(dict(SCOPE), receive, send))
    return sent


def test_a_body_slower_than_its_deadline_gets_408_and_gives_its_budget_back() -> None:
    endpoints = CountingEndpoints()
    sent = run(HttpApp(endpoints, body_timeout_s=0.2), [b"x" * 1000, b"y" * 500], then_wait=True)
    start = sent[0]
    assert start["status"] == 408
    assert (b"connection", b"close") in start["headers"]
    assert b"took over 0.2 s" in sent[1]["body"]
    assert endpoints.reserved == 0
    assert endpoints.handled == []


def test_a_body_in_time_is_handled_whole() -> None:
    endpoints = CountingEndpoints()
    sent = run(HttpApp(endpoints, body_timeout_s=5), [b"x" * 1000, b"y" * 500], then_wait=False)
    assert sent[0]["status"] == 200
    assert endpoints.handled == [b"x" * 1000 + b"y" * 500]
    assert endpoints.reserved == 0  # given back once answered


@pytest.fixture
def queries() -> ReadOnlyQueries:
    connection = duckdb.connect()
    lock_down(connection)
    return ReadOnlyQueries(connection, timeout_s=0.5, max_rows=100_000, max_bytes=1 << 20)


def test_an_answer_over_the_byte_cap_is_refused_with_the_reason(queries: ReadOnlyQueries) -> None:
    with pytest.raises(SqlFailed, match=r"over the 1048576 byte limit \(after \d+ rows\)"):
        queries.run("SELECT repeat('x', 10000) FROM range(1000)")
    answer = json.loads(queries.run("SELECT repeat('x', 10000) AS s FROM range(10)"))
    assert len(answer["rows"]) == 10
    assert answer["columns"] == ["s"]


def test_the_deadline_covers_encoding(
    queries: ReadOnlyQueries, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A slow encoder stands in for a huge answer, so the test does not hang on machine speed."""
    real = encoding.encode_row

    def slow(row: tuple[Any, ...]) -> bytes:
        time.sleep(0.01)
        return real(row)

    monkeypatch.setattr(sql_module, "encode_row", slow)
    started = time.monotonic()
    with pytest.raises(SqlFailed, match=r"longer than 0\.5 s"):
        queries.run("SELECT * FROM range(1000)")  # 10 s of encoding
    assert time.monotonic() - started < 5
