"""Bearer-token auth: required on ingest and SQL when configured, ignored when it is not."""

from __future__ import annotations

import json
from collections.abc import Iterator

import grpc
import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub
from opentelemetry.sdk.trace.export import SpanExportResult

from tests.support.otlp import otlp_request
from tests.support.span_factory import adk_like_spans

from .helpers import JSON, PROTOBUF, Server, protobuf, request, start_server

TOKEN = "s3cret-token"


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
        stub = TraceServiceStub(channel)
        with pytest.raises(grpc.RpcError) as refused:
            stub.Export(message, timeout=10)
        assert refused.value.code() is grpc.StatusCode.UNAUTHENTICATED  # type: ignore[attr-defined]
        stub.Export(message, timeout=10, metadata=[("authorization", f"Bearer {TOKEN}")])


def test_health_is_open_and_the_token_never_leaves_the_server(guarded: Server) -> None:
    reply = guarded.health()
    assert reply.status == 200
    assert reply.json()["token_required"] is True
    sidecar = guarded.db.with_name(guarded.db.name + ".serve.json").read_text()
    assert json.loads(sidecar)["token_required"] is True
    assert TOKEN not in sidecar
    assert TOKEN not in guarded.stderr()


def test_an_empty_token_variable_means_no_auth(server: Server) -> None:
    """The shared server runs with TRACEGRADE_TOKEN="". The Collector sends
    `Bearer tracegrade-auth-disabled` when auth is off: it is ignored."""
    assert server.health().json()["token_required"] is False
    placeholder = {**PROTOBUF, "authorization": "Bearer tracegrade-auth-disabled"}
    assert (
        server.post("/v1/traces", protobuf(adk_like_spans(1, seed=63)), placeholder).status == 200
    )
    assert (
        server.post("/v1/sql", b'{"sql": "SELECT 1"}', {"authorization": "Bearer x"}).status == 200
    )
