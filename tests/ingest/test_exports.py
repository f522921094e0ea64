"""Jaeger and Tempo exports load as the OTLP file they were made from.

tests/data/traces/exports/make_exports.py writes adk_v2_a.otlp.jsonl as Jaeger's and
Tempo's trace APIs return it (see its docstring and tests/data/traces/README.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import invoke
from tests.support.paths import DATA
from tests.support.tiers import costly
from tests.support.views import dict_rows
from tracegrade.ingest import ingest_file
from tracegrade.store import SpanWriter

TRACES = DATA / "traces"
OTLP = TRACES / "adk_v2_a.otlp.jsonl"
JAEGER = TRACES / "exports" / "adk_v2_a.jaeger.json"
TEMPO = TRACES / "exports" / "adk_v2_a.tempo.json"
# Jaeger keeps microseconds and no arrays: what it cannot give back.
_TIMES = {"start_ns", "end_ns", "duration_ms"}


def _load(path: Path, db: Path) -> dict[str, list[dict[str, Any]]]:
    writer = SpanWriter.open(db)
    try:
        report = ingest_file(path, writer)
        assert report.bad_records == []
        assert report.stored == 9
        connection = writer.connection
        return {
            "spans": dict_rows(
                connection,
                "SELECT * EXCLUDE (source, ingested_at, attrs) FROM spans ORDER BY span_id",
            ),
            "turns": dict_rows(connection, "SELECT * FROM turns ORDER BY turn_id"),
            "tool_calls": dict_rows(connection, "SELECT * FROM tool_calls ORDER BY span_id"),
        }
    finally:
        writer.close()


@costly
def test_tempo_export_gives_the_otlp_rows(tmp_path: Path) -> None:
    assert _load(TEMPO, tmp_path / "tempo.db") == _load(OTLP, tmp_path / "otlp.db")


@costly
def test_jaeger_export_gives_the_otlp_rows_to_the_microsecond(tmp_path: Path) -> None:
    otlp = _load(OTLP, tmp_path / "otlp.db")
    jaeger = _load(JAEGER, tmp_path / "jaeger.db")

    for ours, theirs in zip(jaeger["spans"], otlp["spans"], strict=True):
        start_us = theirs["start_ns"] // 1000
        assert ours["start_ns"] == start_us * 1000
        assert ours["end_ns"] == (start_us + (theirs["end_ns"] - theirs["start_ns"]) // 1000) * 1000
        assert json.loads(ours["resource"]) == json.loads(theirs["resource"])
        assert json.loads(ours["attributes"]) == _arrays_as_text(json.loads(theirs["attributes"]))
        skip = {"start_ns", "end_ns", "resource", "attributes"}
        assert {k: v for k, v in ours.items() if k not in skip} == {
            k: v for k, v in theirs.items() if k not in skip
        }
    for view in ("turns", "tool_calls"):
        assert len(jaeger[view]) == len(otlp[view]) > 0
        assert [_untimed(row) for row in jaeger[view]] == [_untimed(row) for row in otlp[view]]


def _arrays_as_text(attributes: dict[str, Any]) -> dict[str, Any]:
    return {
        k: json.dumps(v, separators=(",", ":")) if isinstance(v, list) else v
        for k, v in attributes.items()
    }


def _untimed(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in _TIMES and not k.endswith("_ms")}


def _tempo_as(tmp_path: Path, shape: str) -> Path:
    batches = json.loads(TEMPO.read_text())["batches"]
    if shape == "v2":
        document: dict[str, Any] = {"trace": {"resourceSpans": batches}}
    elif shape == "jaeger_api_v3":
        document = {"result": {"resourceSpans": batches}}
    else:  # Tempo before OTLP 0.15's rename
        for batch in batches:
            batch["instrumentationLibrarySpans"] = batch.pop("scopeSpans")
            for library in batch["instrumentationLibrarySpans"]:
                library["instrumentationLibrary"] = library.pop("scope")
        document = {"batches": batches}
    path = tmp_path / "export.jsonl"  # the name says nothing: the content decides
    path.write_text(json.dumps(document))
    return path


@pytest.mark.parametrize("shape", ["v2", "jaeger_api_v3", "instrumentation_library"])
@costly
def test_wrapped_otlp_exports_give_the_otlp_spans(tmp_path: Path, shape: str) -> None:
    ours = _load(_tempo_as(tmp_path, shape), tmp_path / "export.db")
    assert ours["spans"] == _load(OTLP, tmp_path / "otlp.db")["spans"]


def _jaeger_span(**changes: Any) -> dict[str, Any]:
    span = {
        "traceID": "00f067aa0ba902b7",
        "spanID": "00f067aa0ba902b8",
        "operationName": "execute_tool get_weather",
        "references": [{"refType": "FOLLOWS_FROM", "traceID": "ab", "spanID": "cd"}],
        "startTime": 1_767_225_600_000_001,
        "duration": 1500,
        "tags": [
            {"key": "gen_ai.tool.name", "type": "string", "value": "get_weather"},
            {"key": "retries", "type": "int64", "value": 2},
            {"key": "error", "type": "bool", "value": True},
        ],
        "logs": [
            {
                "timestamp": 1_767_225_600_000_900,
                "fields": [
                    {"key": "event", "type": "string", "value": "exception"},
                    {"key": "exception.type", "type": "string", "value": "ValueError"},
                ],
            }
        ],
        "processID": "p1",
    }
    return {**span, **changes}


def _jaeger_file(tmp_path: Path, *spans: dict[str, Any]) -> Path:
    path = tmp_path / "jaeger.json"
    processes = {"p1": {"serviceName": "weather_app", "tags": []}}
    path.write_text(json.dumps({"data": [{"spans": list(spans), "processes": processes}]}))
    return path


def test_jaeger_ids_tags_logs_and_references(tmp_path: Path, writer: SpanWriter) -> None:
    report = ingest_file(_jaeger_file(tmp_path, _jaeger_span()), writer)
    assert report.bad_records == []
    (row,) = dict_rows(
        writer.connection,
        "SELECT trace_id, span_id, parent_span_id, kind, status_code, start_ns, end_ns,"
        " service_name, attributes, events, links FROM spans",
    )
    assert row["trace_id"] == "000000000000000000f067aa0ba902b7"
    assert row["parent_span_id"] is None
    assert row["kind"] == "UNSPECIFIED"
    assert row["status_code"] == "ERROR"
    assert (row["start_ns"], row["end_ns"]) == (
        1_767_225_600_000_001_000,
        1_767_225_600_001_501_000,
    )
    assert row["service_name"] == "weather_app"
    assert json.loads(row["attributes"]) == {"gen_ai.tool.name": "get_weather", "retries": 2}
    (event,) = json.loads(row["events"])
    assert event["name"] == "exception"
    assert event["attributes"] == {"exception.type": "ValueError"}
    (link,) = json.loads(row["links"])
    assert (link["trace_id"], link["span_id"]) == ("0" * 30 + "ab", "0" * 14 + "cd")


def test_a_bad_jaeger_span_is_reported_with_its_place(tmp_path: Path, writer: SpanWriter) -> None:
    bad_tag = {"key": "retries", "type": "int64", "value": "many"}
    path = _jaeger_file(tmp_path, _jaeger_span(), _jaeger_span(tags=[bad_tag]))
    report = ingest_file(path, writer)
    assert report.bad_records == [
        f"{path}:line 1: Jaeger trace 1, span 2: tag 'retries': a 'int64' tag cannot hold 'many'"
    ]


def test_the_ingest_command_reads_exports_and_otlp_alike(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.duckdb")
    done = invoke("ingest", "--db", db, str(JAEGER), str(TEMPO), str(OTLP))
    assert done.exit_code == 0, done.output
    assert done.stdout.splitlines() == [
        f"{JAEGER}: 1 record, 9 spans stored, 0 already present",
        f"{TEMPO}: 1 record, 0 spans stored, 9 already present",
        f"{OTLP}: 1 record, 0 spans stored, 9 already present",
    ]
