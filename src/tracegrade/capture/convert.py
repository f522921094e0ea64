"""SDK `ReadableSpan` to `SpanRow`: the exporter's half of "same span, same row"."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan

from tracegrade.store.rows import (
    EMPTY_LIST,
    SpanRow,
    attributes_json,
    event_dict,
    link_dict,
    span_id_hex,
    time_problem,
    to_json,
    trace_id_hex,
)


class RowBuilder:
    """Builds rows for a batch, encoding each distinct resource once."""

    def __init__(self, source: str = "exporter") -> None:
        self._source = source
        self._resources: dict[int, tuple[Resource, str, str | None]] = {}

    def rows(self, spans: Sequence[ReadableSpan]) -> list[SpanRow]:
        return [self.row(span) for span in spans]

    def build(self, spans: Sequence[ReadableSpan]) -> tuple[list[SpanRow], list[str]]:
        """Rows of the spans that can be stored as they are, and why each other one cannot."""
        rows: list[SpanRow] = []
        refused: list[str] = []
        for span in spans:
            try:
                rows.append(self.row(span))
            except (ValueError, TypeError) as exc:  # TypeError: a value JSON cannot hold
                refused.append(f"span {span.name!r}: {exc}")
        return rows, refused

    def row(self, span: ReadableSpan) -> SpanRow:
        """The span's row; ValueError or TypeError if it cannot be stored as it is."""
        context = span.context
        assert context is not None  # a finished SDK span always has one
        start, end = span.start_time or 0, span.end_time or 0
        problem = time_problem(start, end)
        if problem:
            raise ValueError(problem)
        parent = span.parent
        status = span.status
        scope = span.instrumentation_scope
        resource_json, service = self._resource(span.resource)
        return SpanRow(
            trace_id=trace_id_hex(context.trace_id),
            span_id=span_id_hex(context.span_id),
            parent_span_id=span_id_hex(parent.span_id) if parent is not None else None,
            name=span.name,
            kind=span.kind.name,
            start_ns=start,
            end_ns=end or start,
            status_code=status.status_code.name,
            status_message=status.description or None,
            service_name=service,
            scope_name=scope.name if scope else None,
            scope_version=(scope.version or None) if scope else None,
            attributes=attributes_json(_attributes(span)),
            resource=resource_json,
            events=_events(span),
            links=_links(span),
            source=self._source,
        )

    def _resource(self, resource: Resource) -> tuple[str, str | None]:
        # Keyed by identity and holding the object, so a recycled id cannot alias.
        cached = self._resources.get(id(resource))
        if cached is None or cached[0] is not resource:
            service = resource.attributes.get("service.name")
            cached = (resource, attributes_json(resource.attributes), _str_or_none(service))
            self._resources[id(resource)] = cached
        return cached[1], cached[2]


def _attributes(span: ReadableSpan) -> Mapping[str, Any] | None:
    # `span.attributes` is a read-only proxy whose copy costs a quarter of a row; the SDK's
    # BoundedAttributes keeps a plain dict inside. Fall back to the proxy if that changes.
    inner = getattr(getattr(span, "_attributes", None), "_dict", None)
    return inner if isinstance(inner, dict) else span.attributes


# `span.events` and `span.links` copy the SDK's list into a new tuple at each read: read once.
def _events(span: ReadableSpan) -> str:
    events = span.events
    if not events:
        return EMPTY_LIST
    return to_json([event_dict(e.name, e.timestamp, e.attributes) for e in events])


def _links(span: ReadableSpan) -> str:
    links = span.links
    if not links:
        return EMPTY_LIST
    return to_json(
        [
            link_dict(
                trace_id_hex(link.context.trace_id),
                span_id_hex(link.context.span_id),
                link.attributes,
            )
            for link in links
        ]
    )


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)
