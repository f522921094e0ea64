"""Which eval run is the latest, and which are signed: run spans written to a real DuckDB
file through the OTLP decoder (as serve stores them) or the in-process exporter's rows."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tests.support.otlp import otlp_request
from tests.support.tiers import costly
from tracegrade.capture.convert import RowBuilder
from tracegrade.ingest.otlp import decode_request
from tracegrade.scoring.engine import NothingToScore
from tracegrade.scoring.stored import latest_run_id
from tracegrade.store import LocalReader, SpanWriter
from tracegrade.store.run_identity import SIGNATURE, run_receipts, run_signature

pytestmark = costly  # every test here: see tests.support.tiers.costly

TOKEN = "the-token"
TEN_YEARS_NS = 10 * 365 * 86400 * 10**9


def _run_span(
    run_id: str, *, ahead_ns: int = 0, sign: str | None = None, more: dict[str, Any] | None = None
) -> Any:
    """A run span as `tracegrade run` records it (tuple-valued lists, as the SDK keeps
    them), signed under `sign` before `more` is added to it."""
    attributes: dict[str, Any] = {
        "tracegrade.run_id": run_id,
        "tracegrade.agent": "shop:agent",
        "tracegrade.models": ("gemini-2.5-flash",),
        "tracegrade.repeats": 2,
        "tracegrade.criteria": json.dumps({"criteria": {"response_match_score": 0.8}}),
    }
    if sign:
        attributes[SIGNATURE] = run_signature(attributes, sign)
    attributes.update(more or {})
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    start = time.time_ns() + ahead_ns
    span = provider.get_tracer("tracegrade").start_span(
        "tracegrade.eval_run", start_time=start, attributes=attributes
    )
    span.end(end_time=start + 1_000)
    finished: tuple[ReadableSpan, ...] = memory.get_finished_spans()
    return finished


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[SpanWriter]:
    opened = SpanWriter.open(tmp_path / "runs.duckdb")
    yield opened
    opened.close()


def _receive(writer: SpanWriter, spans: Any, source: str = "otlp_http") -> None:
    rows = (
        RowBuilder().rows(spans)
        if source == "exporter"
        else decode_request(otlp_request(spans), source).rows
    )
    writer.write(rows)
    time.sleep(0.002)  # each write its own moment: the order received is the order written


def _signed(writer: SpanWriter, token: str | None) -> list[tuple[str, bool | None]]:
    return [(r.run_id, r.attested) for r in run_receipts(LocalReader(writer.connection), token)]


def test_runs_are_ordered_by_when_they_were_received(writer: SpanWriter) -> None:
    _receive(writer, _run_span("zz-claims-the-future", ahead_ns=TEN_YEARS_NS))
    _receive(writer, _run_span("aa-real"))
    assert _signed(writer, None) == [("aa-real", None), ("zz-claims-the-future", None)]
    assert latest_run_id(writer.connection) == "aa-real"


def test_a_run_id_sent_again_keeps_its_first_receipt(writer: SpanWriter) -> None:
    _receive(writer, _run_span("aa-old", sign=TOKEN))
    _receive(writer, _run_span("bb-new", sign=TOKEN))
    _receive(writer, _run_span("aa-old", sign=TOKEN))  # a replay of the old run's span
    assert [run for run, _ in _signed(writer, TOKEN)] == ["bb-new", "aa-old"]


def test_only_a_signature_under_the_token_attests_a_run(writer: SpanWriter) -> None:
    _receive(writer, _run_span("a-signed", sign=TOKEN, more={"collector.added": "x"}))
    _receive(writer, _run_span("b-other-token", sign="not-the-token"))
    # Signed, then its criteria changed: a signature copied onto other contents.
    _receive(writer, _run_span("c-altered", sign=TOKEN, more={"tracegrade.criteria": "{}"}))
    _receive(writer, _run_span("d-unsigned"))
    assert sorted(_signed(writer, TOKEN)) == [
        ("a-signed", True), ("b-other-token", False), ("c-altered", False), ("d-unsigned", False)
    ]  # fmt: skip
    assert latest_run_id(writer.connection, TOKEN) == "a-signed"
    assert latest_run_id(writer.connection) == "d-unsigned"  # no token: nothing told apart


def test_the_in_process_exporter_s_runs_need_no_signature(writer: SpanWriter) -> None:
    _receive(writer, _run_span("a-in-process"), source="exporter")
    _receive(writer, _run_span("b-from-a-file"), source="file")
    assert _signed(writer, TOKEN) == [("b-from-a-file", False), ("a-in-process", True)]
    assert latest_run_id(writer.connection, TOKEN) == "a-in-process"


def test_with_only_unsigned_runs_latest_says_what_to_do(writer: SpanWriter) -> None:
    _receive(writer, _run_span("forged"))
    with pytest.raises(NothingToScore, match="no stored eval run is signed under this token"):
        latest_run_id(writer.connection, TOKEN)
