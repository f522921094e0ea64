"""Writes adk_go_a.otlp.jsonl: scenario a (see ../README.md) as ADK Go writes its spans.

ADK Go cannot run here (no Go toolchain), so this script writes, attribute for attribute,
what google/adk-go's internal/telemetry/telemetry.go at commit
70a6fe54462a218fa6e95e723fa5eca7df7aff12 sets (`TraceLLMCall`, `TraceToolCall`,
`TraceMergedToolCalls`), on the spans `internal/llminternal/base_flow.go` of that era
starts with `telemetry.StartTrace(ctx, "call_llm")`, `"execute_tool " + name` and
`"execute_tool (merged)"`. `StartTrace` drops the context each span is started in, so no
span is another's parent: every span is the root of a trace of its own, and the tool
spans' traces hold no `call_llm` span. The merged span is written after every model
response that called tools, even for one call. Values are serialised with Go's
`json.Marshal` (compact, map keys sorted). The Go SDK's default resource
(`service.name = unknown_service:<binary>`), scope `gcp.vertex.agent` with no version.

Run: python tests/data/traces/adk_go/make_adk_go.py (plain Python, no packages).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
EPOCH_NS = 1_767_225_600_000_000_000
MODEL = "gemini-2.5-flash"
SESSION = "session-adk-go-a"
INVOCATION = "e-inv-0001"
TAG = hashlib.sha256(b"adk_go_a").hexdigest()
RESOURCE = {
    "attributes": [
        {"key": "service.name", "value": {"stringValue": "unknown_service:weather"}},
        {"key": "telemetry.sdk.language", "value": {"stringValue": "go"}},
        {"key": "telemetry.sdk.name", "value": {"stringValue": "opentelemetry"}},
        {"key": "telemetry.sdk.version", "value": {"stringValue": "1.38.0"}},
    ]
}
DESCRIPTIONS = {
    "get_weather": "Returns the current weather for a city.",
    "get_time": "Returns the local time in a city.",
    "convert_temperature": 'Converts a Celsius temperature to Fahrenheit ("F") or Kelvin ("K").',
}
USER = {
    "parts": [{"text": "What is the weather in Paris, in Fahrenheit, and what time is it there?"}],
    "role": "user",
}
# Per model call: the function calls it answered with (name, args, call id, result), or text.
CALLS: list[list[tuple[str, dict[str, Any], str, dict[str, Any]]] | str] = [
    [
        (
            "get_weather",
            {"city": "Paris"},
            "adk-call-0001",
            {"city": "Paris", "conditions": "sunny", "temp_c": 21.5},
        ),
        ("get_time", {"city": "Paris"}, "adk-call-0002", {"city": "Paris", "time": "14:00"}),
    ],
    [
        (
            "convert_temperature",
            {"celsius": 21.5, "to": "F"},
            "adk-call-0003",
            {"unit": "F", "value": 70.7},
        )
    ],
    "It is 70.7 F in Paris at 14:00.",
]


def go_json(value: Any) -> str:
    """Go's json.Marshal of a map: compact, keys sorted."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


class Spans:
    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self.clock = EPOCH_NS
        self.events = 0

    def event_id(self) -> str:
        self.events += 1
        return f"evt-{self.events:04d}"

    def add(self, name: str, attributes: dict[str, str], duration_ms: float) -> None:
        number = len(self.lines) + 1
        start, self.clock = self.clock, self.clock + int(duration_ms * 1e6)
        span = {
            "traceId": TAG[:16] + f"{number:016x}",
            "spanId": TAG[:8] + f"{number:08x}",
            "name": name,
            "kind": 1,
            "startTimeUnixNano": str(start),
            "endTimeUnixNano": str(self.clock),
            "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attributes.items()],
            "status": {},
        }
        self.clock += 200_000
        scope = {"scope": {"name": "gcp.vertex.agent"}, "spans": [span]}
        self.lines.append({"resourceSpans": [{"resource": RESOURCE, "scopeSpans": [scope]}]})


def main() -> None:
    spans = Spans()
    contents: list[dict[str, Any]] = [USER]
    for answer in CALLS:
        if isinstance(answer, str):
            parts: list[dict[str, Any]] = [{"text": answer}]
        else:
            parts = [{"functionCall": {"args": a, "id": i, "name": n}} for n, a, i, _ in answer]
        response = {"content": {"parts": parts, "role": "model"}}
        request = {
            "config": {
                "tools": [
                    {
                        "functionDeclarations": [
                            {"description": d, "name": n} for n, d in DESCRIPTIONS.items()
                        ]
                    }
                ]
            },
            "content": contents,
            "model": MODEL,
        }
        spans.add(
            "call_llm",
            {
                "gen_ai.system": "gcp.vertex.agent",
                "gen_ai.request.model": MODEL,
                "gcp.vertex.agent.invocation_id": INVOCATION,
                "gcp.vertex.agent.session_id": SESSION,
                "gcp.vertex.agent.event_id": spans.event_id(),
                "gcp.vertex.agent.llm_request": go_json(request),
                "gcp.vertex.agent.llm_response": go_json(response),
            },
            4.0,
        )
        if isinstance(answer, str):
            break
        results = []
        for name, args, call_id, result in answer:
            spans.add(
                f"execute_tool {name}",
                {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": name,
                    "gen_ai.tool.description": DESCRIPTIONS[name],
                    "gcp.vertex.agent.llm_request": "{}",
                    "gcp.vertex.agent.tool_call_args": go_json(args),
                    "gcp.vertex.agent.event_id": spans.event_id(),
                    "gen_ai.tool.call.id": call_id,
                    "gcp.vertex.agent.tool_response": go_json(result),
                },
                1.0,
            )
            results.append({"functionResponse": {"id": call_id, "name": name, "response": result}})
        merged = {"content": {"parts": results, "role": "user"}, "invocationId": INVOCATION}
        spans.add(
            "execute_tool (merged)",
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "(merged tools)",
                "gen_ai.tool.description": "(merged tools)",
                "gcp.vertex.agent.llm_request": "{}",
                "gcp.vertex.agent.tool_call_args": "N/A",
                "gcp.vertex.agent.event_id": spans.event_id(),
                "gcp.vertex.agent.tool_response": go_json(merged),
            },
            0.1,
        )
        contents = [*contents, response["content"], {"parts": results, "role": "user"}]
    out = HERE / "adk_go_a.otlp.jsonl"
    out.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in spans.lines))


if __name__ == "__main__":
    main()
