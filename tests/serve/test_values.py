"""Valid spans are never lost and values never silently changed, on every path.

Each case goes through a real `tracegrade serve` (OTLP/HTTP protobuf and JSON, OTLP/gRPC)
and through `tracegrade ingest`: a span is stored as it was sent, or refused alone with
the reason (OTLP partial success; a reported line for `ingest`), the same way on each.
"""

from __future__ import annotations

import json
import math
import random
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import grpc
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from tests.support.otlp import otlp_json
from tracegrade.exit_codes import ExitCode

from .helpers import JSON, PROTOBUF, TRACEGRADE, Server

START = 1_760_000_000_000_000_000


class Sent:
    """What one path answered: refused spans and the reason, and the spans it stored."""

    def __init__(self, rejected: int, message: str, stored: dict[str, dict[str, Any]]) -> None:
        self.rejected = rejected
        self.message = message
        self.stored = stored  # span name -> its attributes


def _request(*spans: Span) -> ExportTraceServiceRequest:
    request = ExportTraceServiceRequest()
    resource_spans = request.resource_spans.add()
    resource_spans.resource.attributes.add(key="service.name").value.string_value = "values"
    resource_spans.scope_spans.add().spans.extend(spans)
    return request


def _span(trace_id: bytes, number: int, name: str) -> Span:
    span = Span(trace_id=trace_id, span_id=number.to_bytes(8, "big"), name=name)
    span.start_time_unix_nano, span.end_time_unix_nano = START, START + 1000
    return span


def _pair(**bad_fields: Any) -> tuple[bytes, ExportTraceServiceRequest]:
    """A good span and a span named 'bad' with `bad_fields`, in one request of a fresh trace."""
    trace_id = random.Random().randbytes(16)
    bad = _span(trace_id, 2, "bad")
    for name, value in bad_fields.items():
        setattr(bad, name, value)
    return trace_id, _request(_span(trace_id, 1, "good"), bad)


def _stored(server: Server, trace_id: bytes) -> dict[str, dict[str, Any]]:
    rows = server.rows("SELECT name, attributes FROM spans WHERE trace_id = ?", [trace_id.hex()])
    return {name: json.loads(attributes) for name, attributes in rows}


def _partial(response: ExportTraceServiceResponse) -> tuple[int, str]:
    return response.partial_success.rejected_spans, response.partial_success.error_message


def http_protobuf(server: Server, trace_id: bytes, request: ExportTraceServiceRequest) -> Sent:
    reply = server.post("/v1/traces", request.SerializeToString(), PROTOBUF)
    assert reply.status == 200, reply.body
    return Sent(
        *_partial(ExportTraceServiceResponse.FromString(reply.body)), _stored(server, trace_id)
    )


def http_json(server: Server, trace_id: bytes, request: ExportTraceServiceRequest | str) -> Sent:
    text = request if isinstance(request, str) else otlp_json(request)
    reply = server.post("/v1/traces", text.encode(), JSON)
    assert reply.status == 200, reply.body
    partial = reply.json().get("partialSuccess", {})
    rejected = int(partial.get("rejectedSpans", 0))
    return Sent(rejected, partial.get("errorMessage", ""), _stored(server, trace_id))


def otlp_grpc(server: Server, trace_id: bytes, request: ExportTraceServiceRequest) -> Sent:
    with grpc.insecure_channel(server.grpc_target) as channel:
        response = TraceServiceStub(channel).Export(request, timeout=30)  # type: ignore[no-untyped-call]
    return Sent(*_partial(response), _stored(server, trace_id))


def ingest(
    tmp_path: Path, trace_id: bytes, request: ExportTraceServiceRequest | str | bytes
) -> Sent:
    """`tracegrade ingest` of one JSON line (text or bytes) or one length-prefixed protobuf
    record."""
    path = tmp_path / f"{trace_id.hex()}.otlp"
    if isinstance(request, str | bytes):
        path.write_bytes((request.encode() if isinstance(request, str) else request) + b"\n")
    else:
        data = request.SerializeToString()
        path.write_bytes(len(data).to_bytes(4, "big") + data)
    db = tmp_path / "ingest.duckdb"
    done = subprocess.run(
        [TRACEGRADE, "ingest", "--db", str(db), str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    reported = [line for line in done.stderr.splitlines() if line.startswith(f"{path}:")]
    assert done.returncode == (ExitCode.USAGE_ERROR if reported else ExitCode.OK), done.stderr
    with duckdb.connect(str(db), read_only=True) as connection:
        rows = connection.execute(
            "SELECT name, attributes FROM spans WHERE trace_id = ?", [trace_id.hex()]
        ).fetchall()
    stored = {name: json.loads(attributes) for name, attributes in rows}
    return Sent(len(reported), "; ".join(reported), stored)


PROTOBUF_PATHS = ["http_protobuf", "http_json", "grpc", "ingest_protobuf", "ingest_json"]


def _send(
    how: str, server: Server, tmp_path: Path, trace_id: bytes, request: ExportTraceServiceRequest
) -> Sent:
    if how == "http_protobuf":
        return http_protobuf(server, trace_id, request)
    if how == "http_json":
        return http_json(server, trace_id, request)
    if how == "grpc":
        return otlp_grpc(server, trace_id, request)
    if how == "ingest_protobuf":
        return ingest(tmp_path, trace_id, request)
    return ingest(tmp_path, trace_id, otlp_json(request))


@pytest.mark.parametrize("how", PROTOBUF_PATHS)
@pytest.mark.parametrize("field", ["start_time_unix_nano", "end_time_unix_nano"])
def test_a_time_past_2262_refuses_that_span_alone(
    server: Server, tmp_path: Path, how: str, field: str
) -> None:
    """A valid uint64 past what the BIGINT column holds: main answered 503 (UNAVAILABLE over
    gRPC) to every retry, so the good span beside it was never stored; ingest aborted."""
    trace_id, request = _pair(**{field: 2**63})
    sent = _send(how, server, tmp_path, trace_id, request)
    assert sent.rejected == 1
    assert f"span 'bad': {field} 9223372036854775808 is outside" in sent.message
    assert list(sent.stored) == ["good"]


@pytest.mark.parametrize("how", PROTOBUF_PATHS)
def test_unknown_kind_or_status_refuses_that_span_alone(
    server: Server, tmp_path: Path, how: str
) -> None:
    """Main stored kind 9 as UNSPECIFIED."""
    trace_id, request = _pair(kind=9)
    sent = _send(how, server, tmp_path, trace_id, request)
    assert (sent.rejected, list(sent.stored)) == (1, ["good"])
    assert "span 'bad': kind 9 is not an OTLP SpanKind" in sent.message


@pytest.mark.parametrize("how", PROTOBUF_PATHS)
def test_nan_and_infinities_are_stored_as_otlp_json_spells_them(
    server: Server, tmp_path: Path, how: str
) -> None:
    """JSON has no NaN: main stored null, the same as an empty value."""
    trace_id, request = _pair()
    bad = request.resource_spans[0].scope_spans[0].spans[1]
    for key, value in [("nan", math.nan), ("inf", math.inf), ("ninf", -math.inf), ("one", 1.5)]:
        bad.attributes.add(key=key).value.double_value = value
    listed = bad.attributes.add(key="list").value.array_value.values
    listed.add().double_value = math.nan
    bad.attributes.add(key="empty")
    sent = _send(how, server, tmp_path, trace_id, request)
    assert sent.rejected == 0, sent.message
    assert sent.stored["bad"] == {
        "nan": "NaN",
        "inf": "Infinity",
        "ninf": "-Infinity",
        "one": 1.5,
        "list": ["NaN"],
        "empty": None,
    }


def _json_with_bad_span(change: Callable[[dict[str, Any]], None]) -> tuple[bytes, str]:
    """A good span and a span 'bad' changed by `change`, as one OTLP/JSON request."""
    trace_id, request = _pair()
    document = json.loads(otlp_json(request))
    change(document["resourceSpans"][0]["scopeSpans"][0]["spans"][1])
    return trace_id, json.dumps(document)


def _refused_whole_on_both_paths(
    server: Server, tmp_path: Path, trace_id: bytes, text: str | bytes
) -> str:
    """A request that does not decode: 400 with the reason, and the same reason from ingest."""
    reply = server.post("/v1/traces", text.encode() if isinstance(text, str) else text, JSON)
    assert reply.status == 400
    assert _stored(server, trace_id) == {}
    sent = ingest(tmp_path, trace_id, text)
    assert sent.stored == {}
    message: str = reply.json()["message"]
    assert sent.message.endswith(f":line 1: {message}")
    return message


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        pytest.param("text", 'not "text"', id="bare-string"),
        pytest.param(["a"], 'not ["a"]', id="bare-list"),
        pytest.param({"bytesValue": "!!!!"}, "bytesValue '!!!!' is not base64", id="base64"),
        pytest.param({"arrayValue": {"values": ["x"]}}, 'not "x"', id="bare-string-in-array"),
    ],
)
def test_json_values_the_parser_would_change_are_refused_with_the_reason(
    server: Server, tmp_path: Path, value: Any, reason: str
) -> None:
    """Protobuf's parser, told to ignore unknown fields as OTLP requires, reads a bare string
    as an empty value; it decodes "!!!!" to no bytes. Main stored null and ""."""

    def bad_value(span: dict[str, Any]) -> None:
        span["attributes"] = [{"key": "k", "value": value}]

    trace_id, text = _json_with_bad_span(bad_value)
    message = _refused_whole_on_both_paths(server, tmp_path, trace_id, text)
    assert "span 'bad': attribute 'k': " in message
    assert reason in message


def test_an_unknown_kind_name_is_refused_with_the_reason(server: Server, tmp_path: Path) -> None:
    """Told to ignore unknown fields, protobuf's parser read an unknown name as UNSPECIFIED."""

    def sideways(span: dict[str, Any]) -> None:
        span["kind"] = "SPAN_KIND_SIDEWAYS"

    trace_id, text = _json_with_bad_span(sideways)
    message = _refused_whole_on_both_paths(server, tmp_path, trace_id, text)
    assert "span 'bad': kind 'SPAN_KIND_SIDEWAYS' is not an OTLP SpanKind" in message


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_a_nan_literal_is_not_json_on_either_path(
    server: Server, tmp_path: Path, literal: str
) -> None:
    """Python's json module accepts NaN; main stored `"kind": NaN` as UNSPECIFIED."""
    trace_id, request = _pair()
    text = otlp_json(request).replace('"name": "bad"', f'"name": "bad", "kind": {literal}')
    assert literal in text
    message = _refused_whole_on_both_paths(server, tmp_path, trace_id, text)
    assert message.startswith(f"not JSON: {literal} is not JSON")


def test_invalid_utf8_is_refused_by_ingest_as_serve_refuses_it(
    server: Server, tmp_path: Path
) -> None:
    """Main's ingest replaced the bytes with U+FFFD and stored the span."""
    trace_id, request = _pair()
    data = otlp_json(request).replace('"name": "bad"', '"name": "bad-XX"').encode()
    data = data.replace(b"XX", b"\xff\xfe")
    message = _refused_whole_on_both_paths(server, tmp_path, trace_id, data)
    assert message.startswith("not JSON: 'utf-8' codec can't decode byte 0xff")


def test_the_refusal_reaches_an_otlp_json_sender_as_partial_success(server: Server) -> None:
    """What a sender reads: HTTP 200, `partialSuccess` with the count and the reason."""
    trace_id, request = _pair(start_time_unix_nano=2**64 - 1)
    reply = server.post("/v1/traces", otlp_json(request).encode(), JSON)
    assert reply.status == 200
    body = reply.json()
    assert body["partialSuccess"]["rejectedSpans"] == "1"
    assert "18446744073709551615 is outside" in body["partialSuccess"]["errorMessage"]
    assert list(_stored(server, trace_id)) == ["good"]
