"""OTLP/JSON to the protobuf request, so JSON and protobuf share one decoder.

OTLP/JSON differs from protobuf's canonical JSON mapping in one way that matters:
trace and span ids are hex strings, not base64. They are rewritten before parsing.

A document that does not decode as an `ExportTraceServiceRequest` is refused whole, with
the reason, as protobuf bytes that do not decode are (OTLP: 400). That includes what
protobuf's parser, told to ignore unknown fields as OTLP requires, would let through
changed (see `json_values`: a bare string where a value object belongs, a `bytesValue`
that is not base64, an enum name it does not know), and the `NaN` and `Infinity`
literals Python's json module accepts (JSON has none; OTLP/JSON writes "NaN"). A span
that decodes but cannot be stored as it is is refused alone by `decode_request`.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from google.protobuf.json_format import ParseDict, ParseError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

from tracegrade.errors import IngestError
from tracegrade.ingest.exports import as_otlp
from tracegrade.ingest.json_values import attributes_problem
from tracegrade.ingest.otlp import Decoded, decode_request

_ID_KEYS = ("traceId", "spanId", "parentSpanId", "trace_id", "span_id", "parent_span_id")
# Told to ignore unknown fields, the parser also reads an enum name it does not know as 0.
_KIND_NAMES = frozenset(Span.SpanKind.keys())
_STATUS_NAMES = frozenset(Status.StatusCode.keys())


def parse_json(text: str | bytes) -> ExportTraceServiceRequest:
    return parse_json_document(_load(text))


def _load(text: str | bytes) -> Any:
    try:
        return json.loads(text, parse_constant=_not_json)
    except (ValueError, RecursionError) as exc:
        raise IngestError(f"not JSON: {exc}") from None


def parse_json_document(document: Any) -> ExportTraceServiceRequest:
    if not isinstance(document, dict):
        raise IngestError("an OTLP/JSON request must be an object with 'resourceSpans'")
    if not ("resourceSpans" in document or "resource_spans" in document):
        raise IngestError("an OTLP/JSON request needs 'resourceSpans' (is this a trace export?)")
    try:
        _check_and_rewrite_ids(document)
        request: ExportTraceServiceRequest = ParseDict(
            document, ExportTraceServiceRequest(), ignore_unknown_fields=True
        )
    except (ParseError, ValueError, TypeError, RecursionError) as exc:
        raise IngestError(f"not an OTLP/JSON trace request: {exc}") from None
    return request


def decode_json(text: str | bytes, source: str) -> Decoded:
    return decode_request(parse_json(text), source)


def decode_json_export(text: str | bytes, source: str) -> Decoded:
    """OTLP/JSON, or a Jaeger or Tempo export of it (`exports`), as files may hold."""
    document = as_otlp(_load(text))
    if isinstance(document, dict) and not document.keys() & {"resourceSpans", "resource_spans"}:
        raise IngestError(
            "neither an OTLP/JSON request ('resourceSpans') nor a Jaeger ('data') or"
            " Tempo ('batches', 'trace') export"
        )
    return decode_request(parse_json_document(document), source)


def _not_json(literal: str) -> Any:
    raise ValueError(f'{literal} is not JSON (OTLP/JSON writes it as the string "{literal}")')


def _check_and_rewrite_ids(document: dict[str, Any]) -> None:
    """Rewrite ids to base64; ValueError naming what the parser would store changed."""
    for resource_spans in _list(document, "resourceSpans", "resource_spans"):
        resource = _object(_object(resource_spans).get("resource") or {})
        _raise(attributes_problem(resource.get("attributes"), "resource attribute"))
        for scope_spans in _list(resource_spans, "scopeSpans", "scope_spans"):
            for span in _list(scope_spans, "spans"):
                _raise(_span_problem(span), f"span {_object(span).get('name')!r}: ")


def _raise(problem: str | None, prefix: str = "") -> None:
    if problem:
        raise ValueError(prefix + problem)


def _span_problem(span: dict[str, Any]) -> str | None:
    _convert_ids(span)
    for link in _list(span, "links"):
        _convert_ids(link)
    return (
        _enum_problem(span)
        or attributes_problem(span.get("attributes"))
        or next(
            (
                f"{kind[:-1]} {_object(item).get('name', '')!r} {problem}"
                for kind in ("events", "links")
                for item in _list(span, kind)
                if (problem := attributes_problem(_object(item).get("attributes")))
            ),
            None,
        )
    )


def _enum_problem(span: dict[str, Any]) -> str | None:
    kind = span.get("kind")
    if isinstance(kind, str) and kind not in _KIND_NAMES:
        return f"kind {kind!r} is not an OTLP SpanKind"
    code = _object(span.get("status") or {}).get("code")
    if isinstance(code, str) and code not in _STATUS_NAMES:
        return f"status code {code!r} is not an OTLP one"
    return None


def _object(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"expected an object, found {type(value).__name__}")
    return value


def _list(container: Any, *keys: str) -> list[Any]:
    for key in keys:
        if key in _object(container):
            value = container[key]
            if not isinstance(value, list):
                raise ValueError(f"'{key}' must be a list")
            return value
    return []


def _convert_ids(item: Any) -> None:
    for key in _ID_KEYS:
        value = _object(item).get(key)
        if isinstance(value, str) and value:
            item[key] = base64.b64encode(_id_bytes(value, key)).decode()


def _id_bytes(value: str, key: str) -> bytes:
    # The spec says hex; some producers send protobuf-JSON base64. Accept both.
    try:
        return bytes.fromhex(value)
    except ValueError:
        pass
    try:
        return base64.b64decode(value, validate=True)
    except binascii.Error:
        raise ValueError(f"{key} {value!r} is neither hex nor base64") from None
