"""Jaeger's JSON trace model (`/api/traces`, the UI's "Download JSON") to OTLP/JSON.

The inverse of what Jaeger does to OTLP spans it receives (the Collector's jaeger
translator): the process's `serviceName` and tags are the resource; `otel.scope.name` /
`otel.scope.version` (`otel.library.*` before) the scope; `span.kind`, `otel.status_code`,
`otel.status_description` and `error` the kind and status; logs the events (the `event`
field their name); the first CHILD_OF reference the parent, other references links.
Times are microseconds (Jaeger keeps no finer), ids hex (a 64-bit trace id, 16 digits,
is left-padded to OTLP's 32). Jaeger has no array values: an OTLP array attribute stored
there is the JSON text of its array, and stays a string.
"""

from __future__ import annotations

from typing import Any

from tracegrade.errors import IngestError

_KINDS = {"internal": 1, "server": 2, "client": 3, "producer": 4, "consumer": 5}
_STATUS = {"OK": 1, "ERROR": 2}
_SCOPE_NAME = ("otel.scope.name", "otel.library.name")
_SCOPE_VERSION = ("otel.scope.version", "otel.library.version")
# Jaeger's own bookkeeping, not the span's.
_DROPPED = ("internal.span.format",)


def is_jaeger(document: dict[str, Any]) -> bool:
    data = document.get("data")
    return isinstance(data, list) and all(isinstance(t, dict) and "spans" in t for t in data)


def jaeger_to_otlp(document: dict[str, Any]) -> dict[str, Any]:
    groups: dict[tuple[str, str, str], dict[str, Any]] = {}
    resources: list[dict[str, Any]] = []
    for number, trace in enumerate(document["data"]):
        processes = trace.get("processes") or {}
        for index, span in enumerate(_list(trace, "spans")):
            try:
                _add_span(span, processes, groups, resources, number)
            except (ValueError, TypeError, KeyError, AttributeError) as exc:
                raise IngestError(
                    f"Jaeger trace {number + 1}, span {index + 1}: {_reason(exc)}"
                ) from None
    return {"resourceSpans": resources}


def _add_span(
    span: dict[str, Any],
    processes: dict[str, Any],
    groups: dict[tuple[str, str, str], dict[str, Any]],
    resources: list[dict[str, Any]],
    trace_number: int,
) -> None:
    tags = {tag["key"]: tag for tag in _list(span, "tags")}
    scope = {"name": _take(tags, _SCOPE_NAME), "version": _take(tags, _SCOPE_VERSION)}
    process_id = span.get("processID") or ""
    key = (f"{trace_number}/{process_id}", scope["name"], scope["version"])
    if key not in groups:
        process = span.get("process") or processes.get(process_id)
        if not isinstance(process, dict):
            raise ValueError(f"its process {process_id!r} is not among the trace's processes")
        groups[key] = {"scope": {k: v for k, v in scope.items() if v}, "spans": []}
        resources.append({"resource": _resource(process), "scopeSpans": [groups[key]]})
    groups[key]["spans"].append(_span(span, tags))


def _span(span: dict[str, Any], tags: dict[str, dict[str, Any]]) -> dict[str, Any]:
    start, duration = int(span["startTime"]), int(span.get("duration") or 0)
    references = _list(span, "references")
    parent = next((r for r in references if r.get("refType") == "CHILD_OF"), None)
    converted: dict[str, Any] = {
        "traceId": _hex_id(span["traceID"], 32),
        "spanId": _hex_id(span["spanID"], 16),
        "name": span.get("operationName") or "",
        "kind": _KINDS.get(str(_take(tags, ("span.kind",))).lower(), 0),
        "startTimeUnixNano": str(start * 1000),
        "endTimeUnixNano": str((start + duration) * 1000),
        "status": _status(tags),
        "links": [_link(r) for r in references if r is not parent],
        "events": [_event(log) for log in _list(span, "logs")],
    }
    if parent is not None:
        converted["parentSpanId"] = _hex_id(parent["spanID"], 16)
    if trace_state := _take(tags, ("w3c.tracestate",)):
        converted["traceState"] = trace_state
    for key in _DROPPED:
        tags.pop(key, None)
    converted["attributes"] = [_attribute(tag) for tag in tags.values()]
    return converted


def _status(tags: dict[str, dict[str, Any]]) -> dict[str, Any]:
    code = _STATUS.get(str(_take(tags, ("otel.status_code",))), 0)
    message = _take(tags, ("otel.status_description",))
    error = tags.get("error")
    if error is not None and error.get("value") in (True, "true"):
        del tags["error"]
        code = code or 2
    status: dict[str, Any] = {"code": code} if code else {}
    if message:
        status["message"] = message
    return status


def _event(log: dict[str, Any]) -> dict[str, Any]:
    fields = {field["key"]: field for field in _list(log, "fields")}
    return {
        "timeUnixNano": str(int(log["timestamp"]) * 1000),
        "name": str(_take(fields, ("event",)) or ""),
        "attributes": [_attribute(field) for field in fields.values()],
    }


def _link(reference: dict[str, Any]) -> dict[str, Any]:
    return {
        "traceId": _hex_id(reference["traceID"], 32),
        "spanId": _hex_id(reference["spanID"], 16),
    }


def _resource(process: dict[str, Any]) -> dict[str, Any]:
    service = {"key": "service.name", "type": "string", "value": process["serviceName"]}
    tags = [tag for tag in _list(process, "tags") if tag.get("key") != "service.name"]
    return {"attributes": [_attribute(tag) for tag in [service, *tags]]}


def _attribute(tag: dict[str, Any]) -> dict[str, Any]:
    kind, value = tag.get("type", "string"), tag.get("value")
    if value is None:
        raise ValueError(f"tag {tag.get('key')!r} has no value")
    if kind == "string" and isinstance(value, str):
        converted: dict[str, Any] = {"stringValue": value}
    elif kind == "bool" and isinstance(value, bool):
        converted = {"boolValue": value}
    elif kind == "int64" and _integer(value):
        converted = {"intValue": str(int(value))}
    elif kind == "float64" and isinstance(value, int | float) and not isinstance(value, bool):
        converted = {"doubleValue": float(value)}
    elif kind == "binary" and isinstance(value, str):
        converted = {"bytesValue": value}
    else:
        raise ValueError(f"tag {tag.get('key')!r}: a {kind!r} tag cannot hold {value!r}")
    return {"key": str(tag["key"]), "value": converted}


def _integer(value: Any) -> bool:
    """An int64 tag's value: a JSON integer, or its decimal text (as 64-bit ids are sent)."""
    if isinstance(value, str):
        digits = value.removeprefix("-")
        return digits.isascii() and digits.isdigit()
    return isinstance(value, int) and not isinstance(value, bool)


def _take(tags: dict[str, dict[str, Any]], keys: tuple[str, ...]) -> Any:
    """The value of the first of `keys` present, removed with the others: it is not an
    attribute of the span but a field Jaeger keeps as a tag."""
    found = [tags.pop(key)["value"] for key in keys if key in tags]
    return found[0] if found else ""


def _hex_id(value: Any, digits: int) -> str:
    if not isinstance(value, str) or not value or len(value) > digits:
        raise ValueError(f"id {value!r} is not hex of at most {digits} digits")
    try:
        int(value, 16)
    except ValueError:
        raise ValueError(f"id {value!r} is not hex") from None
    return value.lower().rjust(digits, "0")


def _list(container: dict[str, Any], key: str) -> list[Any]:
    value = container.get(key) or []
    if not isinstance(value, list):
        raise ValueError(f"'{key}' must be a list")
    return value


def _reason(exc: Exception) -> str:
    if isinstance(exc, KeyError):
        return f"no {exc.args[0]!r}"
    return str(exc)
