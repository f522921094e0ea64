"""OTLP/JSON to the protobuf request, so JSON and protobuf share one decoder.

OTLP/JSON differs from protobuf's canonical JSON mapping in one way that matters:
trace and span ids are hex strings, not base64. They are rewritten before parsing.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from google.protobuf.json_format import ParseDict, ParseError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tracegrade.errors import IngestError
from tracegrade.ingest.otlp import Decoded, decode_request

_ID_KEYS = ("traceId", "spanId", "parentSpanId", "trace_id", "span_id", "parent_span_id")


def parse_json(text: str | bytes) -> ExportTraceServiceRequest:
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise IngestError(f"not JSON: {exc}") from None
    return parse_json_document(document)


def parse_json_document(document: Any) -> ExportTraceServiceRequest:
    if not isinstance(document, dict):
        raise IngestError("an OTLP/JSON request must be an object with 'resourceSpans'")
    if not ("resourceSpans" in document or "resource_spans" in document):
        raise IngestError("an OTLP/JSON request needs 'resourceSpans' (is this a trace export?)")
    try:
        _hex_ids_to_base64(document)
        request: ExportTraceServiceRequest = ParseDict(
            document, ExportTraceServiceRequest(), ignore_unknown_fields=True
        )
    except (ParseError, ValueError, TypeError, RecursionError) as exc:
        raise IngestError(f"not an OTLP/JSON trace request: {exc}") from None
    return request


def decode_json(text: str | bytes, source: str) -> Decoded:
    return decode_request(parse_json(text), source)


def _hex_ids_to_base64(document: dict[str, Any]) -> None:
    for resource_spans in _list(document, "resourceSpans", "resource_spans"):
        for scope_spans in _list(resource_spans, "scopeSpans", "scope_spans"):
            for span in _list(scope_spans, "spans"):
                _convert_ids(span)
                for link in _list(span, "links"):
                    _convert_ids(link)


def _list(container: Any, *keys: str) -> list[Any]:
    if not isinstance(container, dict):
        raise ValueError(f"expected an object, found {type(container).__name__}")
    for key in keys:
        if key in container:
            value = container[key]
            if not isinstance(value, list):
                raise ValueError(f"'{key}' must be a list")
            return value
    return []


def _convert_ids(item: Any) -> None:
    if not isinstance(item, dict):
        raise ValueError(f"expected an object, found {type(item).__name__}")
    for key in _ID_KEYS:
        value = item.get(key)
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
