"""A span gives the same row through the exporter, OTLP protobuf and OTLP/JSON."""

from __future__ import annotations

from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor

from tests.support.adk_run import adk_settings, run_scenario
from tests.support.otlp import otlp_json, otlp_request
from tests.support.scenarios import SCENARIOS
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.capture.convert import RowBuilder
from tracegrade.ingest import decode_json, decode_protobuf
from tracegrade.store import SpanRow


class Collect(SpanProcessor):
    def __init__(self) -> None:
        self.spans: list[ReadableSpan] = []

    def on_end(self, span: ReadableSpan) -> None:
        self.spans.append(span)


def _without_source(rows: list[SpanRow]) -> list[SpanRow]:
    return sorted(row._replace(source="") for row in rows)


def test_exporter_and_otlp_rows_are_identical(captured: BlockingSpanProcessor) -> None:
    spans = _adk_spans(captured)
    from_exporter = RowBuilder().rows(spans)
    request = otlp_request(spans)
    from_protobuf = decode_protobuf(request.SerializeToString(), "otlp_http").rows
    from_json = decode_json(otlp_json(request), "otlp_http").rows

    assert len(from_exporter) == len(spans) >= 14
    assert _without_source(from_protobuf) == _without_source(from_exporter)
    assert _without_source(from_json) == _without_source(from_exporter)


def test_rows_hold_every_part_of_the_span(captured: BlockingSpanProcessor) -> None:
    spans = _adk_spans(captured)
    rows = {row.name: row for row in RowBuilder().rows(spans)}
    raised = rows["execute_tool charge_card"]
    assert raised.status_code == "ERROR"
    assert raised.status_message == "ValueError: card declined for amount 9.99"
    assert '"exception.type":"ValueError"' in raised.events
    assert raised.scope_name == "gcp.vertex.agent"
    assert raised.kind == "INTERNAL"
    assert '"service.name"' in raised.resource
    tool = rows["execute_tool lookup_order"]
    assert '"gen_ai.tool.call.arguments":"{\\"order_id\\": \\"9\\"}"' in tool.attributes


def _adk_spans(captured: BlockingSpanProcessor) -> list[ReadableSpan]:
    from tests.support.adk_run import ROUTER as _router

    collect = Collect()
    _router.target = collect
    try:
        with adk_settings("2", content=True):
            run_scenario(SCENARIOS["tool_raises"])
            run_scenario(SCENARIOS["parallel_calls"], session_id="session-2")
    finally:
        _router.target = captured
    return collect.spans


def test_values_that_read_as_an_empty_string_keep_their_kind() -> None:
    """The decoder takes a non-empty `string_value` as the value; "", 0, false and 0.0 all
    read as "" there, and must still come out as what was sent, as the exporter writes them."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.util.types import Attributes

    collect = Collect()
    provider = TracerProvider()
    provider.add_span_processor(collect)
    attributes: Attributes = {
        "text": "x",
        "empty": "",
        "zero": 0,
        "no": False,
        "nought": 0.0,
        "none": (),
    }
    with provider.get_tracer("t").start_as_current_span("s", attributes=attributes):
        pass
    request = otlp_request(collect.spans)
    decoded = decode_protobuf(request.SerializeToString(), "otlp_http").rows

    assert decoded[0].attributes == (
        '{"text":"x","empty":"","zero":0,"no":false,"nought":0.0,"none":[]}'
    )
    assert _without_source(decoded) == _without_source(RowBuilder().rows(collect.spans))
