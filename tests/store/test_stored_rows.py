"""What the writer stores, column by column, against the rows the JSON path stores.

The writer appends each batch as one Arrow table whose `attrs` comes from the decoded values
(store.batch, store.span_attrs). Before, it scanned numpy columns of the rows and parsed
every span's `attrs` out of its `attributes` JSON with `tg_span_attrs`: that path, kept
here as the reference, is what "the same rows" means. The spans are a real ADK agent's with
content captured, and spans made to hold what is hard to store: NULLs, unicode, NUL
characters, quotes, 64-bit integers, booleans and floats where the views read strings,
nested values, bytes, events and links.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, ArrayValue, KeyValue, KeyValueList
from opentelemetry.proto.trace.v1.trace_pb2 import Span
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.trace import Link, Status, StatusCode

from tests.support.adk_run import Collect, spans_with_content
from tests.support.otlp import otlp_request
from tracegrade.capture.convert import RowBuilder
from tracegrade.ingest import decode_protobuf
from tracegrade.store import SPAN_COLUMNS, SpanRow, SpanWriter, connect
from tracegrade.store.rows import INTEGER_COLUMNS, to_json
from tracegrade.store.span_attrs import attrs_fields, span_attrs

COLUMNS = ", ".join(SPAN_COLUMNS)
STORED = "SELECT * EXCLUDE (ingested_at) FROM spans ORDER BY trace_id, span_id"


@pytest.fixture(scope="module")
def spans() -> list[ReadableSpan]:
    return [*spans_with_content(), *_hard_spans()]


def _hard_spans() -> list[ReadableSpan]:
    collect = Collect()
    provider = TracerProvider()
    provider.add_span_processor(collect)
    tracer = provider.get_tracer("gcp.vertex.agent", "2.13.0")
    with tracer.start_as_current_span(
        "generate_content m",
        attributes={
            "gen_ai.operation.name": "generate_content",
            "gen_ai.request.model": 'météo ☀️ \x00 "q" \\ \u2028',
            "gen_ai.usage.input_tokens": -(2**63),
            "gen_ai.usage.output_tokens": 2**63 - 1,
            "gen_ai.response.finish_reasons": ("stop", "length"),
            "tracegrade.user_text": "ünïcode 😀, and a line\nbreak",
            "tracegrade.repeat": True,
            "gen_ai.input.messages": "[" * 3 + "]" * 3,
        },
    ) as root:
        root.add_event("thinking", {"step": 1, "why": "ß"})
        context = root.get_span_context()
        with tracer.start_as_current_span(
            "execute_tool t",
            links=[Link(context, {"kind": "follows"})],
            attributes={"gen_ai.tool.name": "t", "gen_ai.usage.input_tokens": 1.5},
        ) as tool:
            tool.set_status(Status(StatusCode.ERROR, "boom ✗"))
        with tracer.start_as_current_span(
            "generate_content m",
            attributes={"gen_ai.response.finish_reasons": ('a"b',), "error.type": ""},
        ):
            pass
    return collect.spans


def _nested(request_spans: Sequence[Span]) -> None:
    """Values only OTLP carries (the SDK refuses them): nested lists and maps, bytes, empty."""
    span = request_spans[0]
    for key, value in (
        (
            "gen_ai.tool.call.arguments",
            AnyValue(kvlist_value=KeyValueList(values=[_kv("city", "Oslo")])),
        ),
        (
            "gen_ai.tool.call.result",
            AnyValue(array_value=ArrayValue(values=[AnyValue(int_value=7)])),
        ),
        ("tool.parameters", AnyValue(bytes_value=b"\x00\xff")),
        ("tool.id", AnyValue()),
    ):
        span.attributes.append(KeyValue(key=key, value=value))


def _kv(key: str, text: str) -> KeyValue:
    return KeyValue(key=key, value=AnyValue(string_value=text))


def _stored(path: Path, rows: list[SpanRow]) -> list[tuple[Any, ...]]:
    writer = SpanWriter.open(path, keep_facts=False)
    try:
        assert writer.write(rows).stored == len(rows)
        return writer.connection.execute(STORED).fetchall()
    finally:
        writer.close()


def _as_before(path: Path, rows: list[SpanRow]) -> list[tuple[Any, ...]]:
    """The writer's path before Arrow batches: numpy columns, every `attrs` parsed from JSON."""
    connection = connect(path)
    try:
        columns = zip(*(row[: len(SPAN_COLUMNS)] for row in rows), strict=True)
        connection.register(
            "incoming",
            {
                name: np.array(values, dtype=np.int64 if name in INTEGER_COLUMNS else object)
                for name, values in zip(SPAN_COLUMNS, columns, strict=True)
            },
        )
        connection.execute(
            f"INSERT INTO spans ({COLUMNS}, attrs) "  # noqa: S608 — column names
            f"SELECT {COLUMNS}, tg_span_attrs(attributes) FROM incoming"
        )
        return connection.execute(STORED).fetchall()
    finally:
        connection.close()


def test_exported_rows_are_stored_as_before(spans: list[ReadableSpan], tmp_path: Path) -> None:
    rows = RowBuilder().rows(spans)
    given_attrs = [row for row in rows if row.attrs is not None]
    assert len(rows) >= 15
    # Every ADK span's `attrs` is given; two spans' are parsed: a float, and 'a"b' as JSON.
    assert len(rows) - len(given_attrs) == 2

    stored = _stored(tmp_path / "new.duckdb", rows)

    assert stored == _as_before(tmp_path / "before.duckdb", rows)
    by_name = {row[3]: row for row in stored}
    attrs = by_name["execute_tool t"][-1]
    assert attrs["gen_ai.usage.input_tokens"] == "1.5"  # parsed from the JSON
    assert by_name["execute_tool t"][8] == "boom ✗"


def test_decoded_rows_are_stored_as_before(spans: list[ReadableSpan], tmp_path: Path) -> None:
    request = otlp_request(spans)
    _nested(request.resource_spans[-1].scope_spans[0].spans)
    rows = decode_protobuf(request.SerializeToString(), "otlp_http").rows
    assert len(rows) == len(spans)

    stored = _stored(tmp_path / "new.duckdb", rows)

    assert stored == _as_before(tmp_path / "before.duckdb", rows)
    hard = next(
        row for row in stored if row[-1]["gen_ai.request.model"] == 'météo ☀️ \x00 "q" \\ \u2028'
    )
    assert hard[-1]["gen_ai.usage.input_tokens"] == str(-(2**63))
    assert hard[-1]["gen_ai.usage.output_tokens"] == str(2**63 - 1)
    assert hard[-1]["gen_ai.response.finish_reasons"] == '["stop","length"]'
    assert hard[-1]["tracegrade.repeat"] == "true"
    assert hard[2] is None  # the root's parent
    assert json.loads(hard[14]) == [
        {
            "name": "thinking",
            "time_ns": json.loads(hard[14])[0]["time_ns"],
            "attributes": {"step": 1, "why": "ß"},
        }
    ]


# Values as the decoder and the exporter hold them: whatever `span_attrs` takes must read as
# `tg_span_attrs` parses it from the JSON, and the common kinds must be taken.
_SCALARS = st.one_of(
    st.text(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(allow_nan=False),
)
_VALUES = st.recursive(
    _SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner)
)
_KEYS = st.sampled_from([key for key, _ in attrs_fields()] + ["other"])


_JSON_KEYS = {key for key, is_json in attrs_fields() if is_json}


@pytest.fixture(scope="module")
def parser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[duckdb.DuckDBPyConnection]:
    connection = connect(tmp_path_factory.mktemp("parser") / "p.duckdb")
    yield connection
    connection.close()


@settings(max_examples=300, deadline=None)
@given(attributes=st.dictionaries(_KEYS, _VALUES, max_size=6))
def test_given_attrs_read_as_parsed(
    parser: duckdb.DuckDBPyConnection, attributes: dict[str, Any]
) -> None:
    try:
        text = to_json(attributes)
    except TypeError:
        return  # a lone surrogate: the span is refused before any writer sees it
    given_attrs = span_attrs(attributes)
    if all(
        type(value) in (str, bool, int) and not (key in _JSON_KEYS and type(value) is str)
        for key, value in attributes.items()
    ):
        assert given_attrs is not None
    if given_attrs is None:
        return
    parsed = parser.execute("SELECT tg_span_attrs(?::JSON)", [text]).fetchone()
    assert parsed is not None
    assert tuple(parsed[0].values()) == given_attrs
