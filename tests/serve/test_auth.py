"""Bearer-token auth: required on ingest and SQL when configured, ignored when it is not."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub
from opentelemetry.sdk.trace.export import SpanExportResult

from tests.support.otlp import otlp_request
from tests.support.span_factory import adk_like_spans
from tracegrade.server.app import ServeError, check_exposure
from tracegrade.server.config import ServeConfig

from .helpers import JSON, PROTOBUF, TRACEGRADE, Server, free_port, protobuf, request, start_server

TOKEN = "s3cret-token-for-tests"
AUTH = ("authorization", f"Bearer {TOKEN}")


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = start_server(tmp_path_factory.mktemp("auth"), token=TOKEN)
    yield server
    server.stop()


def without_auth(server: Server, path: str, body: bytes, headers: dict[str, str]) -> int:
    return request(server.port, "POST", path, body, headers, 10).status


@pytest.mark.parametrize("authorization", [None, "Bearer wrong", f"Basic {TOKEN}", "Bearer", TOKEN])
def test_ingest_and_sql_refuse_a_missing_or_wrong_token(
    guarded: Server, authorization: str | None
) -> None:
    headers = {"authorization": authorization} if authorization else {}
    reply = request(guarded.port, "POST", "/v1/traces", protobuf(adk_like_spans(1, seed=60)),
                    {**PROTOBUF, **headers}, 10)  # fmt: skip
    assert reply.status == 401
    assert reply.headers["www-authenticate"].startswith("Bearer")
    sql = json.dumps({"sql": "SELECT 1"}).encode()
    assert request(guarded.port, "POST", "/v1/sql", sql, {**JSON, **headers}, 10).status == 401


def test_the_right_token_is_let_in(guarded: Server) -> None:
    spans = adk_like_spans(2, seed=61)
    headers = {"authorization": f"Bearer {TOKEN}"}
    assert OTLPSpanExporter(endpoint=guarded.traces_url, headers=headers).export(spans) is (
        SpanExportResult.SUCCESS
    )
    assert OTLPSpanExporter(endpoint=guarded.traces_url).export(spans) is SpanExportResult.FAILURE
    assert guarded.rows("SELECT count(*) FROM spans") == [[len(spans)]]


def test_grpc_needs_the_token_too(guarded: Server) -> None:
    message = otlp_request(adk_like_spans(1, seed=62))
    with grpc.insecure_channel(guarded.grpc_target) as channel:
        stub = TraceServiceStub(channel)  # type: ignore[no-untyped-call]
        with pytest.raises(grpc.RpcError) as refused:
            stub.Export(message, timeout=10)
        assert refused.value.code() is grpc.StatusCode.UNAUTHENTICATED
        stub.Export(message, timeout=10, metadata=[("authorization", f"Bearer {TOKEN}")])


EXPORT = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


@pytest.mark.parametrize("metadata", [(), (("authorization", "Bearer wrong"),)])
def test_grpc_refuses_before_the_body_is_read(guarded: Server, metadata: tuple[Any, ...]) -> None:
    """The client sends the call's headers and holds its message back: the answer comes
    while no body has been sent, so the server cannot have read one. Then a body that does
    not decode, with the token missing, is refused for the token, not for the body."""
    sent, release = threading.Event(), threading.Event()

    def held_back() -> Iterator[bytes]:
        release.wait(60)
        sent.set()
        yield otlp_request(adk_like_spans(1, seed=64)).SerializeToString()

    with grpc.insecure_channel(guarded.grpc_target) as channel:
        export = channel.stream_unary(EXPORT)
        with pytest.raises(grpc.RpcError) as refused:
            export(held_back(), timeout=30, metadata=metadata)
        release.set()
        assert refused.value.code() is grpc.StatusCode.UNAUTHENTICATED
        assert not sent.is_set()
        with pytest.raises(grpc.RpcError) as garbage:
            channel.unary_unary(EXPORT)(b"\xff" * 1000, timeout=10, metadata=metadata)
        assert garbage.value.code() is grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(grpc.RpcError) as bad_body:
            channel.unary_unary(EXPORT)(b"\xff" * 1000, timeout=10, metadata=[AUTH])
        assert bad_body.value.code() is grpc.StatusCode.INVALID_ARGUMENT


def test_health_is_open_and_the_token_never_leaves_the_server(guarded: Server) -> None:
    reply = guarded.health()
    assert reply.status == 200
    assert reply.json()["token_required"] is True
    sidecar = guarded.db.with_name(guarded.db.name + ".serve.json").read_text()
    assert json.loads(sidecar)["token_required"] is True
    assert TOKEN not in sidecar
    assert TOKEN not in guarded.stderr()


def test_the_database_path_is_for_holders_of_the_token(guarded: Server) -> None:
    assert "db" not in guarded.health().json()
    with_token = request(guarded.port, "GET", "/health", None, guarded.auth, 10).json()
    assert with_token["db"] == str(guarded.db.resolve())


def test_with_a_token_any_host_is_answered(guarded: Server) -> None:
    """The token admits: a Collector may reach serve by a name it was never told of."""
    sql = json.dumps({"sql": "SELECT 1"}).encode()
    headers = {**JSON, **guarded.auth, "host": f"tracegrade:{guarded.port}"}
    assert request(guarded.port, "POST", "/v1/sql", sql, headers, 10).status == 200


@pytest.mark.parametrize(
    ("token", "problem"),
    [
        ("x", "has 1 characters"),
        ("fifteen-chars!!", "has 15 characters"),
        ("   ", "is blank"),
        ("sixteen chars ok", "holds a space"),
        ("\tsixteen-chars-ok", "holds a space"),
    ],
)
def test_a_token_no_client_can_send_or_anyone_could_guess_is_refused_at_start(
    workdir: Path, token: str, problem: str
) -> None:
    env = {**os.environ, "TRACEGRADE_TOKEN": token}
    db = workdir / "guarded.duckdb"
    done = subprocess.run(
        [TRACEGRADE, "serve", "--db", str(db), "--port", str(free_port()), "--grpc-port", "0"],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"tracegrade: the token (TRACEGRADE_TOKEN or --token) {problem}")
    assert done.stderr.count("\n") == 1
    assert "openssl rand -hex 32" in done.stderr
    assert not db.exists()


def test_an_empty_token_variable_means_no_auth(server: Server) -> None:
    """The shared server runs on loopback with TRACEGRADE_TOKEN="": no auth, so whatever
    a client sends as a token is ignored."""
    assert server.health().json()["token_required"] is False
    placeholder = {**PROTOBUF, "authorization": "Bearer anything"}
    assert (
        server.post("/v1/traces", protobuf(adk_like_spans(1, seed=63)), placeholder).status == 200
    )
    assert (
        server.post("/v1/sql", b'{"sql": "SELECT 1"}', {**JSON, "authorization": "Bearer x"}).status
        == 200
    )


@pytest.mark.parametrize("token", [None, ""])
def test_a_reachable_address_without_a_token_is_refused(workdir: Path, token: str | None) -> None:
    """Refused before anything is opened or bound (the tests bind only 127.0.0.1)."""
    env = {k: v for k, v in os.environ.items() if k != "TRACEGRADE_TOKEN"}
    if token is not None:
        env["TRACEGRADE_TOKEN"] = token
    db = workdir / "exposed.duckdb"
    done = subprocess.run(
        # Free ports, gRPC's too: serve's default 4317 may be a developer's own running serve.
        [TRACEGRADE, "serve", "--host", "0.0.0.0", "--db", str(db), "--port", str(free_port()),
         "--grpc-port", str(free_port())],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("tracegrade: --host 0.0.0.0 lets other machines in")
    assert "TRACEGRADE_TOKEN" in done.stderr
    assert "--allow-unauthenticated" in done.stderr
    assert "Traceback" not in done.stderr
    assert not db.exists()


@pytest.mark.parametrize(
    ("host", "token", "allow", "allowed"),
    [
        ("127.0.0.1", None, False, True),
        ("::1", None, False, True),
        ("localhost", None, False, True),
        ("0.0.0.0", "a-token-of-sixteen", False, True),
        ("0.0.0.0", None, True, True),
        ("0.0.0.0", None, False, False),
        ("::", "", False, False),
        ("10.1.2.3", None, False, False),
    ],
)
def test_the_token_rule(host: str, token: str | None, allow: bool, allowed: bool) -> None:
    config = ServeConfig(Path("x.duckdb"), host=host, token=token, allow_unauthenticated=allow)
    if allowed:
        check_exposure(config)
    else:
        with pytest.raises(ServeError, match="TRACEGRADE_TOKEN"):
            check_exposure(config)
