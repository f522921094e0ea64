"""Spans sent by the real OTel SDK exporters (and as the Collector sends them) arrive once each."""

from __future__ import annotations

import gzip
import json
from collections import Counter

import grpc
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (
    OTLPSpanExporter as GrpcExporter,
)
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub
from opentelemetry.sdk.trace.export import SpanExportResult

from tests.support.otlp import otlp_json, otlp_request
from tests.support.span_factory import adk_like_spans

from .helpers import JSON, PROTOBUF, Server, ids_of, protobuf

COLLECTOR_HEADERS = {
    **PROTOBUF,
    "content-encoding": "gzip",
    "user-agent": "OpenTelemetry Collector Contrib/0.161.0 (linux/amd64)",
}


def stored(server: Server, spans: list) -> Counter[tuple[str, str]]:  # type: ignore[type-arg]
    wanted = ids_of(spans)
    return Counter(key for key in server.ids() if key in wanted)


def test_http_protobuf_exporter(server: Server) -> None:
    spans = adk_like_spans(40, seed=1)
    exporter = HttpExporter(endpoint=server.traces_url, timeout=10)
    assert exporter.export(spans[:100]) is SpanExportResult.SUCCESS
    assert exporter.export(spans[100:]) is SpanExportResult.SUCCESS
    exporter.shutdown()  # type: ignore[no-untyped-call]
    assert stored(server, spans) == Counter(ids_of(spans))


def test_http_protobuf_gzip_exporter(server: Server) -> None:
    spans = adk_like_spans(40, seed=2)
    exporter = HttpExporter(endpoint=server.traces_url, compression=Compression.Gzip, timeout=10)
    assert exporter.export(spans) is SpanExportResult.SUCCESS
    exporter.shutdown()  # type: ignore[no-untyped-call]
    assert stored(server, spans) == Counter(ids_of(spans))


def test_grpc_exporter_with_and_without_gzip(server: Server) -> None:
    spans = adk_like_spans(40, seed=3)
    plain = GrpcExporter(endpoint=server.grpc_target, insecure=True, timeout=10)
    zipped = GrpcExporter(
        endpoint=server.grpc_target, insecure=True, timeout=10, compression=grpc.Compression.Gzip
    )
    assert plain.export(spans[:100]) is SpanExportResult.SUCCESS
    assert zipped.export(spans[100:]) is SpanExportResult.SUCCESS
    plain.shutdown()
    zipped.shutdown()
    assert stored(server, spans) == Counter(ids_of(spans))
    sources = server.rows(
        "SELECT DISTINCT source FROM spans WHERE span_id = ?",
        [f"{spans[0].context.span_id:016x}"],
    )
    assert sources == [["otlp_grpc"]]


def test_otlp_json(server: Server) -> None:
    spans = adk_like_spans(20, seed=4)
    reply = server.post("/v1/traces", otlp_json(otlp_request(spans)).encode(), JSON)
    assert reply.status == 200, reply.body
    assert reply.headers["content-type"] == "application/json"
    assert json.loads(reply.body) == {}
    assert stored(server, spans) == Counter(ids_of(spans))


def test_otlp_json_gzip_with_charset(server: Server) -> None:
    spans = adk_like_spans(10, seed=5)
    body = gzip.compress(otlp_json(otlp_request(spans)).encode())
    headers = {"content-type": "application/json; charset=utf-8", "content-encoding": "gzip"}
    assert server.post("/v1/traces", body, headers).status == 200
    assert stored(server, spans) == Counter(ids_of(spans))


def test_as_the_collector_sends(server: Server) -> None:
    """otlphttp exporter: protobuf, gzip, its User-Agent; the answer parses as OTLP says."""
    spans = adk_like_spans(30, seed=6)
    reply = server.post("/v1/traces", gzip.compress(protobuf(spans)), COLLECTOR_HEADERS)
    assert reply.status == 200
    assert reply.headers["content-type"] == "application/x-protobuf"
    response = ExportTraceServiceResponse.FromString(reply.body)
    assert not response.HasField("partial_success")
    assert stored(server, spans) == Counter(ids_of(spans))


def test_stored_rows_match_the_shared_decoder(server: Server) -> None:
    """What serve stores is what every other ingest path stores for the same span."""
    spans = adk_like_spans(2, seed=7)
    assert server.post("/v1/traces", protobuf(spans), PROTOBUF).status == 200
    got = server.rows(
        "SELECT name, kind, start_ns, end_ns, status_code, service_name, scope_name, "
        "attributes::VARCHAR, resource::VARCHAR FROM spans WHERE span_id = ?",
        [f"{spans[2].context.span_id:016x}"],
    )
    span = spans[2]
    assert got[0][:7] == [span.name, "INTERNAL", span.start_time, span.end_time, "UNSET", "shop",
                          "gcp.vertex.agent"]  # fmt: skip
    assert json.loads(got[0][7]) == {
        key: list(value) if isinstance(value, tuple) else value
        for key, value in (span.attributes or {}).items()
    }


def test_partial_success_reports_rejected_spans(server: Server) -> None:
    spans = adk_like_spans(2, seed=8)
    request = otlp_request(spans)
    bad = request.resource_spans[0].scope_spans[0].spans
    bad[0].span_id = b"\x00" * 8
    bad[1].trace_id = b"\x01\x02"
    for body, headers in (
        (request.SerializeToString(), PROTOBUF),
        (otlp_json(request).encode(), JSON),
    ):
        reply = server.post("/v1/traces", body, headers)
        assert reply.status == 200
        if headers is PROTOBUF:
            partial = ExportTraceServiceResponse.FromString(reply.body).partial_success
            assert (partial.rejected_spans, "span_id" in partial.error_message) == (2, True)
        else:
            partial_json = reply.json()["partialSuccess"]
            assert int(partial_json["rejectedSpans"]) == 2
            assert "trace_id" in partial_json["errorMessage"]
    assert sum(stored(server, spans).values()) == len(spans) - 2


def test_grpc_partial_success(server: Server) -> None:
    spans = adk_like_spans(1, seed=9)
    request = otlp_request(spans)
    request.resource_spans[0].scope_spans[0].spans[0].span_id = b"short"
    with grpc.insecure_channel(server.grpc_target) as channel:
        response = TraceServiceStub(channel).Export(request, timeout=10)  # type: ignore[no-untyped-call]
    assert response.partial_success.rejected_spans == 1
    assert sum(stored(server, spans).values()) == len(spans) - 1


def test_an_empty_request_is_a_success(server: Server) -> None:
    reply = server.post("/v1/traces", ExportTraceServiceRequest().SerializeToString(), PROTOBUF)
    assert (reply.status, reply.body) == (200, b"")
