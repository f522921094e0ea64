"""Trace exports of other tools, as the OTLP/JSON request they hold, told apart by content.

* Jaeger's `/api/traces` and its UI's "Download JSON": `{"data": [{traceID, spans,
  processes}]}`, converted span by span (`jaeger`).
* Jaeger's `api_v3` (`{"result": {"resourceSpans": ...}}`) and Grafana Tempo's
  `/api/v2/traces/<id>` (`{"trace": {"resourceSpans": ...}}`): OTLP/JSON in a wrapper.
* Tempo's `/api/traces/<id>` and Grafana's "Download traces": `{"batches": [...]}`, the
  resource spans under another name, with `instrumentationLibrarySpans` in older Tempo
  releases (OTLP before 0.15 called scopes instrumentation libraries).

Anything else is handed on as it is: an OTLP/JSON request, or what the OTLP parser refuses.
"""

from __future__ import annotations

from typing import Any

from tracegrade.ingest.jaeger import is_jaeger, jaeger_to_otlp

_WRAPPERS = ("result", "trace")


def as_otlp(document: Any) -> Any:
    """The OTLP/JSON request an export holds; `document` itself when it is not an export."""
    if not isinstance(document, dict) or document.keys() & {"resourceSpans", "resource_spans"}:
        return document
    if is_jaeger(document):
        return jaeger_to_otlp(document)
    for key in _WRAPPERS:
        inner = document.get(key)
        if len(document) == 1 and isinstance(inner, dict) and "resourceSpans" in inner:
            return _renamed_scopes(inner)
    if isinstance(document.get("batches"), list):
        return _renamed_scopes({"resourceSpans": document["batches"]})
    return document


def _renamed_scopes(request: dict[str, Any]) -> dict[str, Any]:
    for resource_spans in request.get("resourceSpans") or []:
        if isinstance(resource_spans, dict) and "instrumentationLibrarySpans" in resource_spans:
            libraries = resource_spans.pop("instrumentationLibrarySpans")
            for library in libraries if isinstance(libraries, list) else []:
                if isinstance(library, dict) and "instrumentationLibrary" in library:
                    library["scope"] = library.pop("instrumentationLibrary")
            resource_spans["scopeSpans"] = libraries
    return request
