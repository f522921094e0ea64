"""OTLP request bodies in, OTLP response bodies out: content types, decompression, decoding.

Shared by both receivers. Decompression is capped (a gzip bomb stops at the limit, it is
never inflated whole), and spans are counted before any row is built, so a small body
cannot expand into unbounded memory either.
"""

from __future__ import annotations

import json
import zlib
from enum import Enum

import zstandard
from google.protobuf.json_format import MessageToDict
from google.rpc.status_pb2 import Status
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from tracegrade.errors import IngestError
from tracegrade.ingest.otlp import Decoded, decode_request, parse_protobuf
from tracegrade.ingest.otlp_json import parse_json
from tracegrade.server.admission import Refused

# google.rpc.Code values, as OTLP/HTTP error bodies carry them.
INVALID_ARGUMENT = 3
UNAVAILABLE = 14


class Media(Enum):
    PROTOBUF = "application/x-protobuf"
    JSON = "application/json"


ENCODINGS = frozenset({"", "identity", "gzip", "x-gzip", "deflate", "zstd"})


def media_type(content_type: str) -> Media | None:
    """`application/json; charset=utf-8` -> JSON; anything OTLP does not define -> None."""
    essence = content_type.split(";", 1)[0].strip().lower()
    return next((m for m in Media if m.value == essence), None)


def decompress(body: bytes, encoding: str, limit: int) -> bytes:
    encoding = encoding.strip().lower()
    try:
        if encoding in ("gzip", "x-gzip"):
            return _inflate(body, zlib.MAX_WBITS | 16, limit)
        if encoding == "deflate":
            return _inflate(body, zlib.MAX_WBITS, limit)
        if encoding == "zstd":
            return _unzstd(body, limit)
    except (zlib.error, zstandard.ZstdError) as exc:
        raise Refused(400, f"body is not valid {encoding}: {exc}") from None
    return body


def _inflate(body: bytes, wbits: int, limit: int) -> bytes:
    """Inflate at most `limit` bytes; gzip may hold several members, one after another."""
    out = bytearray()
    rest = body
    while True:
        inflater = zlib.decompressobj(wbits)
        out += inflater.decompress(rest, limit - len(out) + 1)
        if len(out) > limit or inflater.unconsumed_tail:
            raise Refused(413, f"body inflates to more than the {limit} byte limit")
        if not inflater.eof:
            raise Refused(400, "compressed body is truncated")
        rest = inflater.unused_data
        if not rest:
            return bytes(out)


def _unzstd(body: bytes, limit: int) -> bytes:
    out = bytearray()
    with zstandard.ZstdDecompressor().stream_reader(body, read_across_frames=True) as reader:
        while chunk := reader.read(limit + 1 - len(out)):
            out += chunk
            if len(out) > limit:
                raise Refused(413, f"body decompresses to more than the {limit} byte limit")
    return bytes(out)


def parse(body: bytes, media: Media) -> ExportTraceServiceRequest:
    try:
        if media is Media.JSON:
            return parse_json(body)
        return parse_protobuf(body)
    except IngestError as exc:
        raise Refused(400, str(exc)) from None


def decode(request: ExportTraceServiceRequest, source: str, max_spans: int) -> Decoded:
    """Rows from a parsed request, once its span count is known to be within the limit."""
    count = sum(len(scope.spans) for rs in request.resource_spans for scope in rs.scope_spans)
    if count > max_spans:
        raise Refused(
            413, f"{count} spans in one request, the limit is {max_spans}: send smaller batches"
        )
    try:
        return decode_request(request, source)
    except RecursionError:
        raise Refused(400, "attribute values are nested too deeply") from None


def decode_body(
    body: bytes, media: Media, encoding: str, limit: int, max_spans: int
) -> tuple[Decoded, int]:
    """The HTTP path in one call, for a worker thread: the rows, and the inflated size."""
    raw = decompress(body, encoding, limit)
    return decode(parse(raw, media), "otlp_http", max_spans), len(raw)


def export_response(decoded: Decoded) -> ExportTraceServiceResponse:
    response = ExportTraceServiceResponse()
    if decoded.rejected:
        response.partial_success.rejected_spans = decoded.rejected
        response.partial_success.error_message = "; ".join(decoded.reasons)
    return response


def success_body(decoded: Decoded, media: Media) -> bytes:
    return _encode(export_response(decoded), media)


def error_body(message: str, media: Media | None, code: int = INVALID_ARGUMENT) -> bytes:
    """A google.rpc.Status, as OTLP/HTTP error responses carry (JSON if the type is unknown)."""
    return _encode(Status(code=code, message=message), media or Media.JSON)


def _encode(message: ExportTraceServiceResponse | Status, media: Media) -> bytes:
    if media is Media.PROTOBUF:
        data: bytes = message.SerializeToString()
        return data
    return json.dumps(MessageToDict(message)).encode()
