"""Bad input never takes the server down: each gets a 4xx with a reason (or, where the bytes
happen to form a valid request, a 200), never a 5xx or a hang, and the server keeps serving."""

from __future__ import annotations

import gzip
import json
import random
import socket
import zlib
from collections.abc import Callable, Iterator, Sequence

import grpc
import pytest
import zstandard
from google.rpc.status_pb2 import Status
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from tests.support.otlp import otlp_json, otlp_request
from tests.support.span_factory import adk_like_spans

from .helpers import JSON, PROTOBUF, Server, protobuf, start_server

MAX_BODY_MB = 16
GZIP = {**PROTOBUF, "content-encoding": "gzip"}


@pytest.fixture(scope="module")
def small_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = start_server(tmp_path_factory.mktemp("bad"), "--max-body-mb", str(MAX_BODY_MB))
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def still_serving(small_server: Server) -> Iterator[None]:
    yield
    assert small_server.process.poll() is None, small_server.stderr()
    assert small_server.health().status == 200
    spans = adk_like_spans(2, seed=10_000 + random.randrange(1000))  # apart from tests' seeds
    assert small_server.post("/v1/traces", protobuf(spans), PROTOBUF).status == 200


def mutations(seed: int) -> Iterator[tuple[str, bytes, dict[str, str]]]:
    """Seeded: random bytes, truncations, bit flips, and broken JSON, of a real request."""
    rng = random.Random(seed)
    valid = protobuf(adk_like_spans(5, seed=41))
    text = otlp_json(otlp_request(adk_like_spans(2, seed=42)))
    for n in range(40):
        yield f"random {n}", rng.randbytes(rng.randrange(1, 4000)), PROTOBUF
        yield f"truncated {n}", valid[: rng.randrange(1, len(valid))], PROTOBUF
        flipped = bytearray(valid)
        for _ in range(rng.randrange(1, 8)):
            flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
        yield f"bit flips {n}", bytes(flipped), PROTOBUF
        cut = text[: rng.randrange(1, len(text))]
        yield f"json cut {n}", cut.encode(), JSON
        position = rng.randrange(len(text))
        yield (
            f"json char {n}",
            (text[:position] + rng.choice('{}[]",:x0') + text[position + 1 :]).encode(),
            JSON,
        )
        yield f"random gzip {n}", rng.randbytes(rng.randrange(10, 500)), GZIP


def wrong_shapes() -> Iterator[tuple[str, bytes]]:
    spans = [{"traceId": "ab" * 16, "spanId": "cd" * 8, "name": "x"}]
    for name, document in [
        ("not an object", [1, 2]),
        ("no resourceSpans", {"hello": 1}),
        ("resourceSpans not a list", {"resourceSpans": 5}),
        ("scopeSpans a string", {"resourceSpans": [{"scopeSpans": "x"}]}),
        ("span a number", {"resourceSpans": [{"scopeSpans": [{"spans": [7]}]}]}),
        ("bad id", {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "zz"}]}]}]}),
        (
            "time not a number",
            {
                "resourceSpans": [
                    {"scopeSpans": [{"spans": [{**spans[0], "startTimeUnixNano": "soon"}]}]}
                ]
            },
        ),
        (
            "attribute value wrong",
            {
                "resourceSpans": [
                    {
                        "scopeSpans": [
                            {
                                "spans": [
                                    {
                                        **spans[0],
                                        "attributes": [{"key": "k", "value": {"intValue": "x"}}],
                                    }
                                ]
                            }
                        ]
                    }
                ]
            },
        ),
        (
            "lone surrogate",
            {"resourceSpans": [{"scopeSpans": [{"spans": [{**spans[0], "name": "\ud800"}]}]}]},
        ),
    ]:
        yield name, json.dumps(document).encode()


def assert_client_error(reply_status: int, body: bytes, what: str, allowed: Sequence[int]) -> None:
    assert reply_status in allowed, f"{what}: {reply_status} {body[:200]!r}"


def test_fuzzed_payloads(small_server: Server) -> None:
    statuses: dict[int, int] = {}
    for what, body, headers in mutations(seed=1234):
        reply = small_server.post("/v1/traces", body, headers, timeout=10)
        # Some mutations still decode (protobuf skips unknown fields): a 200 is right for those.
        assert_client_error(reply.status, reply.body, what, (200, 400))
        statuses[reply.status] = statuses.get(reply.status, 0) + 1
    assert statuses.get(400, 0) > 100, statuses


@pytest.mark.parametrize(("what", "body"), list(wrong_shapes()))
def test_json_of_the_wrong_shape(small_server: Server, what: str, body: bytes) -> None:
    reply = small_server.post("/v1/traces", body, JSON)
    assert reply.status == 400, (what, reply.body)
    assert reply.json()["message"], "a 400 says why"


def gzip_bomb(size: int) -> bytes:
    """One gzip stream inflating to `size` zero bytes."""
    compressor = zlib.compressobj(1, zlib.DEFLATED, 31)
    chunk = bytes(1 << 20)
    return b"".join([*(compressor.compress(chunk) for _ in range(size >> 20)), compressor.flush()])


def deflate_bomb(size: int) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS)
    chunk = bytes(1 << 20)
    return b"".join([*(compressor.compress(chunk) for _ in range(size >> 20)), compressor.flush()])


def zstd_bomb(size: int) -> bytes:
    compressor = zstandard.ZstdCompressor().compressobj()
    chunk = bytes(1 << 20)
    return b"".join([*(compressor.compress(chunk) for _ in range(size >> 20)), compressor.flush()])


BOMBS: dict[str, tuple[Callable[[], bytes], str]] = {
    "gzip-one-stream-256MB": (lambda: gzip_bomb(256 << 20), "gzip"),
    "gzip-1024-members-1GB": (lambda: gzip.compress(bytes(1 << 20), 9) * 1024, "gzip"),
    "deflate-64MB": (lambda: deflate_bomb(64 << 20), "deflate"),
    "zstd-1GB": (lambda: zstd_bomb(1 << 30), "zstd"),
}


@pytest.mark.parametrize("bomb", list(BOMBS))
def test_decompression_bombs_stop_at_the_limit(small_server: Server, bomb: str) -> None:
    make, encoding = BOMBS[bomb]
    reply = small_server.post("/v1/traces", make(), {**PROTOBUF, "content-encoding": encoding})
    assert reply.status == 413, bomb
    assert b"limit" in reply.body


def test_broken_compression(small_server: Server) -> None:
    whole = gzip.compress(protobuf(adk_like_spans(3, seed=43)))
    for what, body in [
        ("truncated gzip", whole[:-20]),
        ("gzip magic, then junk", whole[:10] + b"junk" * 20),
    ]:
        reply = small_server.post("/v1/traces", body, GZIP)
        assert reply.status == 400, what


def attribute_request(attributes: list[KeyValue]) -> bytes:
    request = otlp_request(adk_like_spans(1, seed=44)[:1])
    span = request.resource_spans[0].scope_spans[0].spans[0]
    del span.attributes[:]
    span.attributes.extend(attributes)
    data: bytes = request.SerializeToString()
    return data


def field(number: int, payload: bytes) -> bytes:
    """One length-delimited protobuf field, written by hand: upb refuses to build deep ones."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        out.append(value & 0x7F | (0x80 if value > 0x7F else 0))
        value >>= 7
        if not value:
            return bytes(out)


def deeply_nested_request(depth: int) -> bytes:
    """A span whose one attribute is a kvlist nested `depth` levels deep."""
    value = AnyValue(string_value="bottom").SerializeToString()
    for _ in range(depth):
        value = field(6, field(1, field(1, b"k") + field(2, value)))  # kvlist_value.values[0]
    span = otlp_request(adk_like_spans(1, seed=46)[:1]).resource_spans[0].scope_spans[0].spans[0]
    del span.attributes[:]
    span_bytes = span.SerializeToString() + field(9, field(1, b"deep") + field(2, value))
    return field(1, field(2, field(2, span_bytes)))


def deeply_nested_json(depth: int) -> bytes:
    """Written as text: json.dumps itself gives up long before a parser should."""
    value = '{"kvlistValue":{"values":[{"key":"k","value":' * depth
    value += '{"stringValue":"bottom"}' + "}]}}" * depth
    span = f'{{"traceId":"{"ab" * 16}","spanId":"{"cd" * 8}","name":"deep",'
    span += f'"attributes":[{{"key":"deep","value":{value}}}]}}'
    return f'{{"resourceSpans":[{{"scopeSpans":[{{"spans":[{span}]}}]}}]}}'.encode()


def test_a_10_mb_attribute_within_the_limit_is_stored(small_server: Server) -> None:
    big = "x" * (10 << 20)
    body = attribute_request([KeyValue(key="big", value=AnyValue(string_value=big))])
    assert small_server.post("/v1/traces", body, PROTOBUF).status == 200
    span_id = (
        ExportTraceServiceRequest.FromString(body)
        .resource_spans[0]
        .scope_spans[0]
        .spans[0]
        .span_id.hex()
    )
    rows = small_server.rows(
        "SELECT length(attributes->>'big') FROM spans WHERE span_id = ?", [span_id]
    )
    assert rows == [[10 << 20]]


def test_ten_thousand_attributes_are_stored(small_server: Server) -> None:
    body = attribute_request(
        [KeyValue(key=f"k{i}", value=AnyValue(int_value=i)) for i in range(10_000)]
    )
    assert small_server.post("/v1/traces", body, PROTOBUF).status == 200


def test_attributes_nested_200_deep_are_refused(small_server: Server) -> None:
    assert small_server.post("/v1/traces", deeply_nested_request(20), PROTOBUF).status == 200
    reply = small_server.post("/v1/traces", deeply_nested_request(200), PROTOBUF)
    assert reply.status == 400
    assert b"protobuf" in reply.body


def test_json_nested_200_deep(small_server: Server) -> None:
    """JSON nests deeper than protobuf allows; the server answers either way and stays up."""
    reply = small_server.post("/v1/traces", deeply_nested_json(200), JSON)
    assert reply.status in (200, 400), reply.body
    reply = small_server.post("/v1/traces", deeply_nested_json(5000), JSON)
    assert reply.status == 400, reply.body


def test_too_many_spans_in_one_request(small_server: Server) -> None:
    request = ExportTraceServiceRequest()
    scope = request.resource_spans.add().scope_spans.add()
    for i in range(1, 70_001):
        scope.spans.add(trace_id=b"\x01" * 16, span_id=i.to_bytes(8, "big"))
    reply = small_server.post("/v1/traces", request.SerializeToString(), PROTOBUF)
    assert reply.status == 413
    assert b"70000 spans" in reply.body


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"content-type": "text/plain"}, 415),
        ({}, 415),
        ({"content-type": "application/protobuf"}, 415),
        ({**PROTOBUF, "content-encoding": "br"}, 415),
    ],
)
def test_wrong_content_types(small_server: Server, headers: dict[str, str], status: int) -> None:
    reply = small_server.post("/v1/traces", protobuf(adk_like_spans(1, seed=45)), headers)
    assert reply.status == status
    # OTLP/HTTP: a google.rpc.Status, in the request's encoding when that one is OTLP's.
    if reply.headers["content-type"] == "application/x-protobuf":
        assert "content encoding 'br'" in Status.FromString(reply.body).message
    else:
        assert "is not OTLP" in reply.json()["message"]


def test_a_body_over_the_limit(small_server: Server) -> None:
    reply = small_server.post("/v1/traces", bytes((MAX_BODY_MB << 20) + 1), PROTOBUF)
    assert reply.status == 413


def raw_exchange(server: Server, data: bytes, shutdown: bool = True) -> bytes:
    """Send raw bytes; return whatever comes back before the server closes (10 s at most)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(data)
        if shutdown:
            sock.shutdown(socket.SHUT_WR)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
        return received


POST_PROTOBUF = (
    b"POST /v1/traces HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/x-protobuf\r\n"
)


@pytest.mark.parametrize(
    ("what", "data", "status"),
    [
        ("garbage", b"\x16\x03\x01\x02\x00hello\r\n\r\n", b"400"),
        (
            "huge header",
            b"POST /v1/traces HTTP/1.1\r\nhost: 127.0.0.1\r\nx: " + b"a" * 100_000,
            b"431",
        ),
        (
            "body cut short",
            POST_PROTOBUF + b"content-length: 1000\r\n\r\nabc",
            b"400",
        ),
        (
            "chunked over the limit",
            POST_PROTOBUF
            + b"transfer-encoding: chunked\r\n\r\n"
            + (b"100000\r\n" + bytes(0x100000) + b"\r\n") * (MAX_BODY_MB + 1),
            b"413",
        ),
    ],
    ids=["garbage", "huge-header", "body-cut-short", "chunked-over-limit"],
)
def test_broken_http(small_server: Server, what: str, data: bytes, status: bytes) -> None:
    answer = raw_exchange(small_server, data)
    assert answer.startswith(b"HTTP/1.1 " + status), (what, answer[:200])


def test_a_head_over_64_kib_gets_431_however_it_arrives(small_server: Server) -> None:
    """h11 bounds only a head still incomplete; these arrive whole, in a read or two."""

    def head(size: int) -> bytes:
        start = b"GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\nx-pad: "
        return start + b"a" * (size - len(start) - 4) + b"\r\n\r\n"

    assert raw_exchange(small_server, head(100_000)).startswith(b"HTTP/1.1 431 ")
    assert raw_exchange(small_server, head(64 * 1024 + 1)).startswith(b"HTTP/1.1 431 ")
    assert raw_exchange(small_server, head(64 * 1024)).startswith(b"HTTP/1.1 200 ")


def test_a_silent_client_does_not_block_others(small_server: Server) -> None:
    with socket.create_connection(("127.0.0.1", small_server.port), timeout=10) as idle:
        idle.sendall(b"POST /v1/traces HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 100\r\n")
        assert small_server.health().status == 200


@pytest.mark.parametrize(
    "payload",
    [b"\xff\xff\xff\xff", b"\x0a\x05abc", deeply_nested_request(200)],
    ids=["junk", "truncated", "nested-200"],
)
def test_grpc_bad_data_is_invalid_argument(small_server: Server, payload: bytes) -> None:
    """Not INTERNAL (grpcio's answer to a request it cannot parse): OTLP senders retry that."""
    with grpc.insecure_channel(small_server.grpc_target) as channel:
        export = channel.unary_unary(
            "/opentelemetry.proto.collector.trace.v1.TraceService/Export",
            request_serializer=None,
            response_deserializer=None,
        )
        with pytest.raises(grpc.RpcError) as refused:
            export(payload, timeout=10)
    assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "protobuf" in refused.value.details()


def test_grpc_too_many_spans_is_invalid_argument(small_server: Server) -> None:
    request = ExportTraceServiceRequest()
    scope = request.resource_spans.add().scope_spans.add()
    for i in range(1, 70_001):
        scope.spans.add(trace_id=b"\x02" * 16, span_id=i.to_bytes(8, "big"))
    with (
        grpc.insecure_channel(small_server.grpc_target) as channel,
        pytest.raises(grpc.RpcError) as refused,
    ):
        TraceServiceStub(channel).Export(request, timeout=10)  # type: ignore[no-untyped-call]
    assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT


def test_a_grpc_message_over_the_limit_is_resource_exhausted(small_server: Server) -> None:
    oversized = b"\x0a" + b"\xff" * (MAX_BODY_MB * 1024 * 1024)
    with grpc.insecure_channel(small_server.grpc_target) as channel:
        export = channel.unary_unary("/opentelemetry.proto.collector.trace.v1.TraceService/Export")
        with pytest.raises(grpc.RpcError) as refused:
            export(oversized, timeout=60)
    assert refused.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
