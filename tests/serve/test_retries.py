"""A re-delivered request stores nothing twice: resent, resent after a timeout, or concurrent."""

from __future__ import annotations

import gzip
import socket
import time
from concurrent.futures import ThreadPoolExecutor

from tests.support.span_factory import adk_like_spans

from .helpers import PROTOBUF, Server, ids_of, protobuf


def count_of(server: Server, spans: list) -> int:  # type: ignore[type-arg]
    wanted = ids_of(spans)
    return sum(1 for key in server.ids() if key in wanted)


def test_the_same_request_twice(server: Server) -> None:
    spans = adk_like_spans(20, seed=20)
    body = protobuf(spans)
    assert server.post("/v1/traces", body, PROTOBUF).status == 200
    assert (
        server.post(
            "/v1/traces", gzip.compress(body), {**PROTOBUF, "content-encoding": "gzip"}
        ).status
        == 200
    )
    assert count_of(server, spans) == len(spans)


def test_resent_after_the_client_timed_out(server: Server) -> None:
    """The client gives up before the answer (as on a timeout), then sends the request again."""
    spans = adk_like_spans(1500, seed=21)
    body = protobuf(spans)
    head = (
        f"POST /v1/traces HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/x-protobuf\r\n"
        f"content-length: {len(body)}\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(head + body)
        sock.settimeout(0.001)
        try:
            sock.recv(1)
            timed_out = False
        except TimeoutError:
            timed_out = True
    assert timed_out, "the answer came within 1 ms: this test no longer exercises a timeout"
    assert server.post("/v1/traces", body, PROTOBUF).status == 200
    deadline = time.monotonic() + 10
    while count_of(server, spans) < len(spans) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)  # the abandoned first request has committed by now too
    assert count_of(server, spans) == len(spans)


def test_concurrent_copies_in_one_group_commit(server: Server) -> None:
    """Copies of one request racing each other can land in the same transaction."""
    spans = adk_like_spans(100, seed=22)
    body = protobuf(spans)
    with ThreadPoolExecutor(8) as pool:
        statuses = list(
            pool.map(lambda _: server.post("/v1/traces", body, PROTOBUF).status, range(8))
        )
    assert statuses == [200] * 8
    assert count_of(server, spans) == len(spans)
