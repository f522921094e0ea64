"""Shared helpers for the fixture generators: deterministic ids, OTLP/JSON encoding,
timestamp rebasing and the stable-placeholder pass for ADK's random ids.

Not imported by tracegrade or its tests; only by make_adk_fixtures.py and
make_genai_semconv.py in this folder.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.id_generator import IdGenerator

# 2026-01-01T00:00:00Z: the first span of every fixture starts here.
EPOCH_NS = 1_767_225_600_000_000_000


class SequentialIds(IdGenerator):
    """Reviewable, collision-free ids: a per-fixture tag plus a counter.

    trace id = <16 hex tag><16 hex counter>, span id = <8 hex tag><8 hex counter>,
    the tag being the first bytes of sha256(fixture name), so fixtures loaded into
    one database never share an id.
    """

    def __init__(self, fixture: str) -> None:
        digest = hashlib.sha256(fixture.encode()).digest()
        self._trace_tag = int.from_bytes(digest[:8], "big")
        self._span_tag = int.from_bytes(digest[:4], "big")
        self._traces = 0
        self._spans = 0

    def generate_trace_id(self) -> int:
        self._traces += 1
        return (self._trace_tag << 64) | self._traces

    def generate_span_id(self) -> int:
        self._spans += 1
        return (self._span_tag << 32) | self._spans


_ID_KEYS = {"traceId", "spanId", "parentSpanId"}


def _b64_to_hex(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            k: (
                base64.b64decode(v).hex()
                if k in _ID_KEYS and isinstance(v, str)
                else _b64_to_hex(v)
            )
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_b64_to_hex(v) for v in node]
    return node


def to_otlp_json(spans: Sequence[ReadableSpan]) -> dict[str, Any]:
    """One ExportTraceServiceRequest as OTLP/JSON (camelCase, hex ids, int64 as strings,
    enums as integers), the way the Collector's file exporter writes a line."""
    message = encode_spans(spans)
    as_dict = MessageToDict(message, use_integers_for_enums=True)
    converted: dict[str, Any] = _b64_to_hex(as_dict)
    return converted


def rebase_timestamps(requests: list[dict[str, Any]], epoch_ns: int = EPOCH_NS) -> int:
    """Shift every *UnixNano field so the earliest span start is `epoch_ns`.
    Returns the shift (ns) so other wall-clock values can be shifted the same way."""
    starts = [
        int(span["startTimeUnixNano"])
        for req in requests
        for rs in req["resourceSpans"]
        for ss in rs["scopeSpans"]
        for span in ss["spans"]
    ]
    shift = epoch_ns - min(starts)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                if k.endswith("UnixNano") and isinstance(v, str):
                    node[k] = str(int(v) + shift)
                else:
                    walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    for req in requests:
        walk(req)
    return shift


def group_by_trace(spans: Iterable[ReadableSpan]) -> list[list[ReadableSpan]]:
    """Spans grouped by trace, traces in the order of their first finished span;
    spans keep the SDK's export (= end) order inside a group."""
    groups: dict[int, list[ReadableSpan]] = {}
    for span in spans:
        groups.setdefault(span.context.trace_id, []).append(span)
    return list(groups.values())


_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


class Placeholders:
    """Replaces ADK's random ids by stable placeholders, consistently everywhere.

    adk-<uuid>  (ADK-made tool call id)  -> adk-call-0001, ...
    e-<uuid>    (ADK invocation id)      -> e-inv-0001, ...
    <uuid>      (ADK event id)           -> evt-0001, ...
    Numbered in order of first appearance in the text handed to `apply`.
    """

    _PATTERN = re.compile(rf"(?<![0-9A-Za-z_-])(adk-|e-)?({_UUID})(?![0-9A-Za-z_-])")

    def __init__(self) -> None:
        self.mapping: dict[str, str] = {}
        self._counts = {"adk-": 0, "e-": 0, "": 0}
        self._names = {"adk-": "adk-call-{:04d}", "e-": "e-inv-{:04d}", "": "evt-{:04d}"}

    def _sub(self, match: re.Match[str]) -> str:
        whole = match.group(0)
        if whole not in self.mapping:
            prefix = match.group(1) or ""
            self._counts[prefix] += 1
            self.mapping[whole] = self._names[prefix].format(self._counts[prefix])
        return self.mapping[whole]

    def apply(self, text: str) -> str:
        return self._PATTERN.sub(self._sub, text)


def write_jsonl(path: Path, requests: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in requests))


def trim_stacktraces(requests: list[dict[str, Any]], keep_frames: int = 1) -> int:
    """Shorten every `exception.stacktrace` span-event attribute to its header, the
    innermost `keep_frames` frames and the exception line, to keep fixtures small.
    A line saying how many frames were elided is put in their place. Returns the
    number of stack traces trimmed."""
    trimmed = 0
    for req in requests:
        for rs in req["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                for span in ss["spans"]:
                    for event in span.get("events", []):
                        for attr in event.get("attributes", []):
                            if attr["key"] != "exception.stacktrace":
                                continue
                            value = attr["value"].get("stringValue", "")
                            short = _trim(value, keep_frames)
                            if short != value:
                                attr["value"]["stringValue"] = short
                                trimmed += 1
    return trimmed


def _trim(trace_text: str, keep_frames: int) -> str:
    lines = trace_text.rstrip("\n").split("\n")
    frame_starts = [i for i, line in enumerate(lines) if line.startswith('  File "')]
    if len(frame_starts) <= keep_frames:
        return trace_text
    first_kept = frame_starts[-keep_frames]
    elided = len(frame_starts) - keep_frames
    head = lines[: frame_starts[0]]
    marker = f"  ... {elided} frames elided by the fixture generator ..."
    return "\n".join([*head, marker, *lines[first_kept:]]) + "\n"
