"""Encoding spans as OTLP senders do: the SDK's protobuf encoder, and OTLP/JSON from it."""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from typing import Any

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import ReadableSpan

_ID_KEYS = ("traceId", "spanId", "parentSpanId")


def otlp_request(spans: Sequence[ReadableSpan]) -> ExportTraceServiceRequest:
    request: ExportTraceServiceRequest = encode_spans(spans)
    return request


def otlp_json(request: ExportTraceServiceRequest) -> str:
    """OTLP/JSON as the spec (and the Collector) write it: hex ids, camelCase, int64 as strings."""
    document = MessageToDict(request)
    for resource_spans in document.get("resourceSpans", []):
        for scope_spans in resource_spans.get("scopeSpans", []):
            for span in scope_spans.get("spans", []):
                _hex_ids(span)
                for link in span.get("links", []):
                    _hex_ids(link)
    return json.dumps(document)


def _hex_ids(item: dict[str, Any]) -> None:
    for key in _ID_KEYS:
        if key in item:
            item[key] = base64.b64decode(item[key]).hex()
