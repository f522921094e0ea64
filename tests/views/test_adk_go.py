"""ADK Go's spans: tests/data/traces/adk_go/adk_go_a.otlp.jsonl, written by make_adk_go.py
next to it as google/adk-go's internal/telemetry/telemetry.go (commit 70a6fe5) writes them:
v1-style attributes, and every span the root of its own trace, so a tool span's trace has
no call_llm span to tell whether content was captured."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.paths import DATA
from tests.support.views import dict_rows
from tracegrade.ingest import ingest_file
from tracegrade.store import SpanWriter

FIXTURE = DATA / "traces" / "adk_go" / "adk_go_a.otlp.jsonl"


def test_adk_go_tool_calls_keep_their_arguments(writer: SpanWriter) -> None:
    assert ingest_file(FIXTURE, writer).bad_records == []
    calls = dict_rows(
        writer.connection,
        "SELECT name, args, result, call_id, convention FROM tool_calls ORDER BY start_ns",
    )
    assert calls == [
        {
            "name": "get_weather",
            "args": '{"city":"Paris"}',
            "result": '{"city":"Paris","conditions":"sunny","temp_c":21.5}',
            "call_id": "adk-call-0001",
            "convention": "adk_v1",
        },
        {
            "name": "get_time",
            "args": '{"city":"Paris"}',
            "result": '{"city":"Paris","time":"14:00"}',
            "call_id": "adk-call-0002",
            "convention": "adk_v1",
        },
        {
            "name": "convert_temperature",
            "args": '{"celsius":21.5,"to":"F"}',
            "result": '{"unit":"F","value":70.7}',
            "call_id": "adk-call-0003",
            "convention": "adk_v1",
        },
    ]


def test_hidden_v1_content_still_reads_as_not_captured(writer: SpanWriter, tmp_path: Path) -> None:
    """The other side of the default: where a trace has a call_llm span with the empty
    request ADK Python v1 writes when content capture is off, its '{}' args stay NULL."""
    request = json.loads((DATA / "traces" / "adk_v1_a.otlp.jsonl").read_text())
    for resource_spans in request["resourceSpans"]:
        for scope_spans in resource_spans["scopeSpans"]:
            for span in scope_spans["spans"]:
                for attribute in span.get("attributes", []):
                    if attribute["key"] in _HIDDEN:
                        attribute["value"] = {"stringValue": "{}"}
    hidden = tmp_path / "hidden.otlp.jsonl"
    hidden.write_text(json.dumps(request) + "\n")
    assert ingest_file(hidden, writer).bad_records == []
    calls = dict_rows(writer.connection, "SELECT name, args, args_captured FROM tool_calls")
    assert len(calls) == 3
    assert {(c["args"], c["args_captured"]) for c in calls} == {(None, False)}


_HIDDEN = {
    "gcp.vertex.agent.llm_request",
    "gcp.vertex.agent.llm_response",
    "gcp.vertex.agent.tool_call_args",
    "gcp.vertex.agent.tool_response",
}
