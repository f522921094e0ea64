"""The in-process exporter stores a span as it is, or refuses that span alone with the reason."""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path

import duckdb
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from tests.support.tiers import costly
from tracegrade.capture import DuckDBSpanExporter

pytestmark = costly  # every test here: see tests.support.tiers.costly


def test_values_json_cannot_hold_are_stored_or_refused_alone(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    exporter = DuckDBSpanExporter(tmp_path / "x.duckdb", batch_rows=1)
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("t")
    with tracer.start_as_current_span("non-finite") as span:
        span.set_attributes({"nan": math.nan, "inf": math.inf, "list": [1.5, -math.inf]})
    tracer.start_span("late", start_time=2**63).end(end_time=2**63 + 1)
    with tracer.start_as_current_span("surrogate") as span:
        span.set_attribute("text", "\ud800")
    with caplog.at_level(logging.WARNING, "tracegrade.capture"):
        provider.shutdown()

    with duckdb.connect(str(tmp_path / "x.duckdb"), read_only=True) as connection:
        stored = dict(connection.execute("SELECT name, attributes FROM spans").fetchall())
    assert {name: json.loads(value) for name, value in stored.items()} == {
        "non-finite": {"nan": "NaN", "inf": "Infinity", "list": [1.5, "-Infinity"]}
    }
    assert exporter.stats.failed == 2
    assert "span 'late': start_time_unix_nano 9223372036854775808 is outside" in caplog.text
    assert "span 'surrogate': str is not valid UTF-8" in caplog.text
