"""HTTP details the OTLP exporters and the Collector rely on."""

from __future__ import annotations

import http.client
import socket

from tests.support.serve_app import ServeApp
from tests.support.span_factory import adk_like_spans

from .helpers import PROTOBUF, Server, protobuf


def test_unknown_paths_and_methods(serve_app: ServeApp) -> None:
    assert serve_app.request("POST", "/v1/metrics", b"", PROTOBUF).status == 404
    reply = serve_app.request("GET", "/v1/traces")
    assert (reply.status, reply.headers["allow"]) == (405, "POST")
    assert serve_app.request("POST", "/health").status == 405


def test_keep_alive_serves_many_requests_on_one_connection(server: Server) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        for seed in (90, 91, 92):
            connection.request(
                "POST", "/v1/traces", protobuf(adk_like_spans(2, seed=seed)), PROTOBUF
            )
            response = connection.getresponse()
            response.read()
            assert response.status == 200
        connection.request("GET", "/health")
        assert connection.getresponse().status == 200
    finally:
        connection.close()


def test_expect_100_continue(server: Server) -> None:
    body = protobuf(adk_like_spans(2, seed=93))
    head = (
        "POST /v1/traces HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/x-protobuf\r\n"
        f"content-length: {len(body)}\r\nexpect: 100-continue\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(head)
        assert sock.recv(1024).startswith(b"HTTP/1.1 100 ")
        sock.sendall(body)
        assert sock.recv(1024).startswith(b"HTTP/1.1 200 ")


def test_health(server: Server) -> None:
    reply = server.health()
    assert reply.status == 200
    document = reply.json()
    assert document["status"] == "ok"
    assert document["pid"] == server.process.pid
    assert "db" not in document  # the file's path is for holders of the token
    assert isinstance(document["spans"], int)
    assert document["uptime_s"] > 0


def test_a_refused_small_request_keeps_the_connection(server: Server) -> None:
    """A 4xx decided from the head still reads the (small) body, so the next request works."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.request("POST", "/v1/traces", b"x" * 1000, {"content-type": "text/plain"})
        refused = connection.getresponse()
        refused.read()
        assert refused.status == 415
        assert refused.getheader("connection") != "close"
        connection.request("POST", "/v1/traces", protobuf(adk_like_spans(1, seed=95)), PROTOBUF)
        assert connection.getresponse().status == 200
    finally:
        connection.close()
