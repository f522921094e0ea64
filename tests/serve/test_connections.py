"""Connections stay bounded in number and in time: HEAD, slow heads, idle floods, refusals."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.span_factory import adk_like_spans

from .helpers import PROTOBUF, Server, protobuf, request, start_server

MAX_CONNECTIONS = 64


def open_sockets(pid: int) -> int:
    return sum(1 for fd in Path(f"/proc/{pid}/fd").iterdir() if _link(fd).startswith("socket:"))


def _link(fd: Path) -> str:
    """What the descriptor points at; "" for one closed between listing and reading it
    (the server closes connections all the while: it failed a full run once)."""
    try:
        return os.readlink(fd)
    except FileNotFoundError:
        return ""


def test_head_is_answered_like_get_without_a_body(server: Server) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"HEAD /health HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n")
        answer = _read_head(sock)
        assert answer.startswith(b"HTTP/1.1 200 "), answer
        assert b"content-length: " in answer.lower()
        # No body follows: the same connection answers the next request at once.
        sock.sendall(b"HEAD /health HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n")
        assert _read_head(sock).startswith(b"HTTP/1.1 200 ")
    refused = request(server.port, "HEAD", "/v1/traces", None, {}, 5)
    assert (refused.status, refused.headers["allow"]) == (405, "POST")


def test_a_trickling_head_is_cut_at_its_deadline(server: Server) -> None:
    """A byte every half second keeps a connection active, but the head must be whole
    within 10 s of its first byte (the idle timeout is 120 s)."""
    head = b"POST /v1/traces HTTP/1.1\r\nhost: 127.0.0.1\r\nx-slow: " + b"a" * 80  # 60 s of bytes
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        for byte in head:
            try:
                sock.sendall(bytes([byte]))
                time.sleep(0.5)
            except OSError:
                break  # the server closed it
            if _closed(sock):
                break
        else:
            pytest.fail("the server kept a trickling head for 60 s")
    assert time.monotonic() - started < 60
    assert server.health().status == 200


def _closed(sock: socket.socket) -> bool:
    sock.setblocking(False)
    try:
        data = sock.recv(4096)
    except BlockingIOError:
        return False
    finally:
        sock.setblocking(True)
    assert not data or data.startswith(b"HTTP/1.1 408 "), data
    return True


@pytest.fixture
def capped(workdir: Path) -> Iterator[Server]:
    server = start_server(workdir, "--max-connections", str(MAX_CONNECTIONS))
    yield server
    server.stop()


def test_idle_connections_past_the_cap_do_not_stop_ingest_or_health(capped: Server) -> None:
    """Ten times the cap of sockets that never send, or send half a head, then real work."""
    idle = []
    try:
        for i in range(10 * MAX_CONNECTIONS):
            sock = socket.create_connection(("127.0.0.1", capped.port), timeout=10)
            if i % 3 == 0:
                sock.sendall(b"POST /v1/traces HTTP/1.1\r\nhost: 127.0.0.1\r\n")
            idle.append(sock)
        assert capped.health().status == 200
        body = protobuf(adk_like_spans(2, seed=301))
        assert capped.post("/v1/traces", body, PROTOBUF).status == 200
        assert open_sockets(capped.process.pid) <= MAX_CONNECTIONS + 16  # + gRPC, listeners
    finally:
        for sock in idle:
            sock.close()
    assert capped.health().status == 200


def test_a_refused_request_waiting_for_100_continue_is_answered_at_once(server: Server) -> None:
    """Refused from its head (not OTLP): no 100 Continue, the answer, and the connection closed."""
    head = (
        b"POST /v1/traces HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: text/plain\r\n"
        b"content-length: 1000000\r\nexpect: 100-continue\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(head)
        answer = _read_all(sock)
    assert answer.startswith(b"HTTP/1.1 415 "), answer[:200]
    assert b"100 Continue" not in answer


def _read_head(sock: socket.socket) -> bytes:
    """The status line and headers, asserting nothing else came with them."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    assert rest == b"", rest[:100]
    return head


def _read_all(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data
