"""OTLP `ExportTraceServiceRequest` to `SpanRow`s: the decoder every ingest path shares.

Protobuf is decoded directly; OTLP/JSON is first parsed into the same protobuf message
(see `otlp_json`), so a span gives the same row whichever encoding carried it, and the
same row the in-process exporter writes.

A request that decodes has each span stored as it was sent, or refused with the reason
(counted in `Decoded`, which receivers answer as OTLP partial success): ids of the wrong
size, a kind or status code OTLP does not define, a time past what a signed 64-bit
column holds. The other spans of the request are stored either way.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, Span

from tracegrade.errors import IngestError
from tracegrade.store.rows import (
    EMPTY_LIST,
    EMPTY_OBJECT,
    INT64_MAX,
    SpanRow,
    event_dict,
    link_dict,
    time_problem,
    to_json,
)

_KINDS = {0: "UNSPECIFIED", 1: "INTERNAL", 2: "SERVER", 3: "CLIENT", 4: "PRODUCER", 5: "CONSUMER"}
_STATUS = {0: "UNSET", 1: "OK", 2: "ERROR"}


@dataclass
class Decoded:
    """Rows decoded from one request, and the spans refused with the first reasons why."""

    rows: list[SpanRow] = field(default_factory=list)
    rejected: int = 0
    reasons: list[str] = field(default_factory=list)

    def reject(self, reason: str) -> None:
        self.rejected += 1
        if len(self.reasons) < 5:
            self.reasons.append(reason)

    def extend(self, other: Decoded) -> None:
        self.rows.extend(other.rows)
        self.rejected += other.rejected
        self.reasons.extend(other.reasons[: max(0, 5 - len(self.reasons))])


def parse_protobuf(body: bytes) -> ExportTraceServiceRequest:
    try:
        request: ExportTraceServiceRequest = ExportTraceServiceRequest.FromString(body)
    except (DecodeError, RecursionError, ValueError) as exc:
        raise IngestError(f"not an OTLP ExportTraceServiceRequest in protobuf: {exc}") from None
    return request


def decode_protobuf(body: bytes, source: str) -> Decoded:
    return decode_request(parse_protobuf(body), source)


def decode_request(request: ExportTraceServiceRequest, source: str) -> Decoded:
    decoded = Decoded()
    for resource_spans in request.resource_spans:
        try:
            _decode_resource(resource_spans, source, decoded)
        except RecursionError:  # in the resource's attributes, read before any span
            for scope_spans in resource_spans.scope_spans:
                for _ in scope_spans.spans:
                    decoded.reject("resource attribute values are nested too deeply")
    return decoded


def _decode_resource(resource_spans: ResourceSpans, source: str, decoded: Decoded) -> None:
    resource = _attributes(resource_spans.resource.attributes)
    resource_json = to_json(resource) if resource else EMPTY_OBJECT
    service = resource.get("service.name")
    service_name = None if service is None else str(service)
    for scope_spans in resource_spans.scope_spans:
        scope = scope_spans.scope
        context = (service_name, scope.name or None, scope.version or None, resource_json, source)
        for span in scope_spans.spans:
            try:
                row = _row(span, *context)
            except _Invalid:
                decoded.reject(_invalid(span) or f"span {span.name!r}: invalid")
                continue
            except RecursionError:
                decoded.reject(f"span {span.name!r}: attribute values are nested too deeply")
                continue
            decoded.rows.append(row)


class _Invalid(Exception):
    """A span `_row` cannot store as sent; `_invalid` says why."""


def _invalid(span: Span) -> str | None:
    if len(span.trace_id) != 16 or not any(span.trace_id):
        return f"span {span.name!r}: trace_id must be 16 bytes, not all zero"
    if len(span.span_id) != 8 or not any(span.span_id):
        return f"span {span.name!r}: span_id must be 8 bytes, not all zero"
    if span.parent_span_id and len(span.parent_span_id) != 8:
        return f"span {span.name!r}: parent_span_id must be 8 bytes"
    if span.kind not in _KINDS:
        return f"span {span.name!r}: kind {span.kind} is not an OTLP SpanKind (0 to 5)"
    if span.status.code not in _STATUS:
        return f"span {span.name!r}: status code {span.status.code} is not an OTLP one (0 to 2)"
    if span.start_time_unix_nano > INT64_MAX or span.end_time_unix_nano > INT64_MAX:
        problem = time_problem(span.start_time_unix_nano, span.end_time_unix_nano)
        return f"span {span.name!r}: {problem}"
    return None


def _row(
    span: Span,
    service_name: str | None,
    scope_name: str | None,
    scope_version: str | None,
    resource_json: str,
    source: str,
) -> SpanRow:
    """The span's row, or `_Invalid` when `_invalid` would name a problem.

    The checks are those of `_invalid`, folded in so that each field is read once: this runs
    for every span a server receives (with `_attributes`' string path, measured on ADK-shaped
    spans against reading fields twice: 12.6 → 10.6 µs a span, bench/ingest/README.md).
    """
    trace_id, span_id, parent = span.trace_id, span.span_id, span.parent_span_id
    kind, status = span.kind, span.status
    code, start, end = status.code, span.start_time_unix_nano, span.end_time_unix_nano
    if (
        len(trace_id) != 16
        or trace_id == _ZERO_TRACE
        or len(span_id) != 8
        or span_id == _ZERO_SPAN
        or (parent and len(parent) != 8)
        or kind not in _KINDS
        or code not in _STATUS
        or start > INT64_MAX
        or end > INT64_MAX
    ):
        raise _Invalid
    return SpanRow(
        trace_id.hex(),
        span_id.hex(),
        parent.hex() if parent else None,
        span.name,
        _KINDS[kind],
        start,
        end or start,
        _STATUS[code],
        status.message or None,
        service_name,
        scope_name,
        scope_version,
        _attributes_json(span.attributes),
        resource_json,
        _events(span) if span.events else EMPTY_LIST,
        _links(span) if span.links else EMPTY_LIST,
        source,
    )


_ZERO_TRACE, _ZERO_SPAN = bytes(16), bytes(8)


def _attributes_json(pairs: Iterable[KeyValue]) -> str:
    attributes = _attributes(pairs)
    return to_json(attributes) if attributes else EMPTY_OBJECT


def _events(span: Span) -> str:
    return to_json(
        [event_dict(e.name, e.time_unix_nano, _attributes(e.attributes)) for e in span.events]
    )


def _links(span: Span) -> str:
    return to_json(
        [
            link_dict(link.trace_id.hex(), link.span_id.hex(), _attributes(link.attributes))
            for link in span.links
        ]
    )


def _attributes(pairs: Iterable[KeyValue]) -> dict[str, Any]:
    # Most values are strings: a non-empty `string_value` is one (the other kinds read as
    # ""), which spares `WhichOneof` and a second attribute read for each (ADK's model
    # calls carry 15 attributes, nearly all strings).
    attributes = {}
    for pair in pairs:
        value = pair.value
        text = value.string_value
        attributes[pair.key] = text if text else _value(value)
    return attributes


_SCALARS = frozenset({"string_value", "int_value", "double_value", "bool_value"})


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind in _SCALARS:
        return getattr(value, kind)
    if kind == "array_value":
        return [_value(item) for item in value.array_value.values]
    if kind == "kvlist_value":
        return _attributes(value.kvlist_value.values)
    if kind == "bytes_value":
        return base64.b64encode(value.bytes_value).decode()
    return None
