"""Writes adk_v2_a.jaeger.json and adk_v2_a.tempo.json: ../adk_v2_a.otlp.jsonl as Jaeger's
and Grafana Tempo's trace APIs give it back once they have received it over OTLP.

* Jaeger (`/api/traces/<id>`, the UI's "Download JSON"; jaeger's model/json): what its
  OTLP receiver's translator (opentelemetry-collector-contrib pkg/translator/jaeger) makes
  of each span, rendered in that JSON model. Parent as a CHILD_OF reference, links as
  FOLLOWS_FROM; times in microseconds (truncated, as Jaeger stores them); attributes as
  typed tags, array values as their JSON text (Jaeger has no arrays); then
  `otel.scope.name`/`otel.scope.version`, `span.kind` (lower case), `otel.status_code`,
  `error` and `otel.status_description` where set; events as logs with an `event` field;
  the resource as process `p1` (`serviceName` + the other attributes as tags).
* Tempo (`/api/traces/<id>`; Grafana's "Download traces"): `{"batches": [resourceSpans]}`
  in gogo-protobuf's JSON: ids base64, enums by name, 64-bit integers as strings.

Run: python tests/data/traces/exports/make_exports.py (plain Python, no packages).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
SOURCE = HERE.parent / "adk_v2_a.otlp.jsonl"
KINDS = ["unspecified", "internal", "server", "client", "producer", "consumer"]
STATUS = {1: "OK", 2: "ERROR"}


def jaeger_value(value: dict[str, Any]) -> tuple[str, Any]:
    if "stringValue" in value:
        return "string", value["stringValue"]
    if "boolValue" in value:
        return "bool", value["boolValue"]
    if "intValue" in value:
        return "int64", int(value["intValue"])
    if "doubleValue" in value:
        return "float64", value["doubleValue"]
    if "bytesValue" in value:
        return "binary", value["bytesValue"]
    return "string", json.dumps(plain(value), separators=(",", ":"))


def plain(value: dict[str, Any]) -> Any:
    """An AnyValue as pdata's AsString renders arrays and maps: plain JSON."""
    if "arrayValue" in value:
        return [plain(v) for v in value["arrayValue"].get("values", [])]
    if "kvlistValue" in value:
        return {kv["key"]: plain(kv["value"]) for kv in value["kvlistValue"].get("values", [])}
    if "intValue" in value:
        return int(value["intValue"])
    return next(iter(value.values()), None)


def tags(attributes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for attribute in attributes:
        kind, value = jaeger_value(attribute["value"])
        out.append({"key": attribute["key"], "type": kind, "value": value})
    return out


def jaeger_span(span: dict[str, Any], scope: dict[str, Any]) -> dict[str, Any]:
    start_us = int(span["startTimeUnixNano"]) // 1000
    duration_us = (int(span["endTimeUnixNano"]) - int(span["startTimeUnixNano"])) // 1000
    extra = [{"key": "otel.scope.name", "type": "string", "value": scope["name"]}]
    if scope.get("version"):
        extra.append({"key": "otel.scope.version", "type": "string", "value": scope["version"]})
    if span.get("kind"):
        extra.append({"key": "span.kind", "type": "string", "value": KINDS[span["kind"]]})
    status = span.get("status") or {}
    if status.get("code"):
        code = STATUS[status["code"]]
        extra.append({"key": "otel.status_code", "type": "string", "value": code})
        if code == "ERROR":
            extra.append({"key": "error", "type": "bool", "value": True})
    if status.get("message"):
        message = status["message"]
        extra.append({"key": "otel.status_description", "type": "string", "value": message})
    references = []
    if span.get("parentSpanId"):
        references.append(
            {"refType": "CHILD_OF", "traceID": span["traceId"], "spanID": span["parentSpanId"]}
        )
    for link in span.get("links", []):
        references.append(
            {"refType": "FOLLOWS_FROM", "traceID": link["traceId"], "spanID": link["spanId"]}
        )
    return {
        "traceID": span["traceId"],
        "spanID": span["spanId"],
        "operationName": span["name"],
        "references": references,
        "startTime": start_us,
        "duration": duration_us,
        "tags": tags(span.get("attributes", [])) + extra,
        "logs": [
            {
                "timestamp": int(event["timeUnixNano"]) // 1000,
                "fields": [
                    {"key": "event", "type": "string", "value": event["name"]},
                    *tags(event.get("attributes", [])),
                ],
            }
            for event in span.get("events", [])
        ],
        "processID": "p1",
        "warnings": None,
    }


def jaeger(requests: list[dict[str, Any]]) -> dict[str, Any]:
    traces: dict[str, dict[str, Any]] = {}
    for request in requests:
        for resource_spans in request["resourceSpans"]:
            attributes = resource_spans["resource"]["attributes"]
            service = next(a for a in attributes if a["key"] == "service.name")
            process = {
                "serviceName": service["value"]["stringValue"],
                "tags": tags([a for a in attributes if a["key"] != "service.name"]),
            }
            for scope_spans in resource_spans["scopeSpans"]:
                for span in scope_spans["spans"]:
                    trace = traces.setdefault(
                        span["traceId"],
                        {"traceID": span["traceId"], "spans": [], "processes": {"p1": process}},
                    )
                    trace["spans"].append(jaeger_span(span, scope_spans["scope"]))
    data = [{**t, "warnings": None} for t in traces.values()]
    return {"data": data, "total": 0, "limit": 0, "offset": 0, "errors": None}


def gogo(node: Any, key: str = "") -> Any:
    """OTLP/JSON as Tempo's gogo-protobuf marshaller writes it."""
    if isinstance(node, dict):
        return {k: gogo(v, k) for k, v in node.items()}
    if isinstance(node, list):
        return [gogo(v) for v in node]
    if key in ("traceId", "spanId", "parentSpanId") and node:
        return base64.b64encode(bytes.fromhex(node)).decode()
    if key == "kind":
        return "SPAN_KIND_" + KINDS[node].upper()
    if key == "code":
        return "STATUS_CODE_" + STATUS[node]
    return node


def main() -> None:
    requests = [json.loads(line) for line in SOURCE.read_text().splitlines() if line]
    (HERE / "adk_v2_a.jaeger.json").write_text(json.dumps(jaeger(requests), indent=2) + "\n")
    batches = [rs for request in requests for rs in gogo(request)["resourceSpans"]]
    (HERE / "adk_v2_a.tempo.json").write_text(json.dumps({"batches": batches}, indent=2) + "\n")


if __name__ == "__main__":
    main()
