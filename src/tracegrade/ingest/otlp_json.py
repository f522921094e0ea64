"""OTLP/JSON to the protobuf request, so JSON and protobuf share one decoder.

OTLP/JSON differs from protobuf's canonical JSON mapping in one way that matters:
trace and span ids are hex strings, not base64. They are rewritten before parsing.

A span is refused on its own, with the reason, when its ids are neither hex nor base64,
when a value would be read as something else (see `json_values`), or when protobuf's
parser refuses it; the request's other spans are kept. Such a span reaches
`decode_request` as a stand-in (see `otlp.REFUSED_PREFIX`), so every receiver reports
it as it reports any refused span. A document that is not JSON is refused whole: that
includes the `NaN` and `Infinity` literals Python's json module would otherwise accept
(OTLP/JSON writes those doubles as the strings "NaN" and "Infinity").
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Iterator
from typing import Any

from google.protobuf.json_format import ParseDict, ParseError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

from tracegrade.errors import IngestError
from tracegrade.ingest.json_values import attributes_problem
from tracegrade.ingest.otlp import REFUSED_PREFIX, Decoded, decode_request

_ID_KEYS = ("traceId", "spanId", "parentSpanId", "trace_id", "span_id", "parent_span_id")
_PARSER_ERRORS = (ParseError, ValueError, TypeError, RecursionError)
# Told to ignore unknown fields, the parser also reads an enum name it does not know as 0.
_KIND_NAMES = frozenset(Span.SpanKind.keys())
_STATUS_NAMES = frozenset(Status.StatusCode.keys())


def parse_json(text: str | bytes) -> ExportTraceServiceRequest:
    try:
        document = json.loads(text, parse_constant=_not_json)
    except (ValueError, RecursionError) as exc:
        raise IngestError(f"not JSON: {exc}") from None
    return parse_json_document(document)


def parse_json_document(document: Any) -> ExportTraceServiceRequest:
    if not isinstance(document, dict):
        raise IngestError("an OTLP/JSON request must be an object with 'resourceSpans'")
    if not ("resourceSpans" in document or "resource_spans" in document):
        raise IngestError("an OTLP/JSON request needs 'resourceSpans' (is this a trace export?)")
    try:
        _refuse_changed_spans(document)
        return _parse(document)
    except _PARSER_ERRORS as exc:
        whole = exc
    # Protobuf's parser stops at the first bad field: find the spans to blame, parse the rest.
    try:
        if _refuse_unparsable_spans(document):
            return _parse(document)
    except _PARSER_ERRORS:
        pass
    raise IngestError(f"not an OTLP/JSON trace request: {whole}") from None


def decode_json(text: str | bytes, source: str) -> Decoded:
    return decode_request(parse_json(text), source)


def _not_json(literal: str) -> Any:
    raise ValueError(f'{literal} is not JSON (OTLP/JSON writes it as the string "{literal}")')


def _parse(document: dict[str, Any]) -> ExportTraceServiceRequest:
    request: ExportTraceServiceRequest = ParseDict(
        document, ExportTraceServiceRequest(), ignore_unknown_fields=True
    )
    return request


def _span_lists(document: dict[str, Any]) -> Iterator[tuple[str | None, list[Any]]]:
    """Each scope's list of spans, with what is wrong with its resource's attributes."""
    for resource_spans in _list(document, "resourceSpans", "resource_spans"):
        resource = _object(resource_spans).get("resource")
        problem = _guarded(attributes_problem, _object(resource or {}).get("attributes"))
        for scope_spans in _list(resource_spans, "scopeSpans", "scope_spans"):
            yield (f"resource {problem}" if problem else None), _list(scope_spans, "spans")


def _refuse_changed_spans(document: dict[str, Any]) -> None:
    """Rewrite ids to base64, and stand in for each span that would be stored changed."""
    for resource_problem, spans in _span_lists(document):
        for index, span in enumerate(spans):
            problem = resource_problem or _guarded(_span_problem, span)
            if problem:
                spans[index] = _stand_in(span, problem)


def _refuse_unparsable_spans(document: dict[str, Any]) -> bool:
    """Stand in for each span protobuf's parser refuses; False if none did."""
    found = False
    for _, spans in _span_lists(document):
        for index, span in enumerate(spans):
            try:
                ParseDict(span, Span(), ignore_unknown_fields=True)
            except _PARSER_ERRORS as exc:
                spans[index] = _stand_in(span, str(exc))
                found = True
    return found


def _span_problem(span: Any) -> str | None:
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


def _guarded(check: Callable[[Any], str | None], value: Any) -> str | None:
    try:
        return check(value)
    except ValueError as exc:
        return str(exc)
    except RecursionError:
        return "attribute values are nested too deeply"


def _stand_in(span: Any, reason: str) -> dict[str, str]:
    name = span.get("name") if isinstance(span, dict) else None
    return {"name": f"{REFUSED_PREFIX}span {name!r}: {reason}"}


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
