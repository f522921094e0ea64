"""What a turn's page shows of its content: each model call's messages, read from the
message documents the spans carry (OTel GenAI `gen_ai.input.messages` / `output.messages`,
as ADK 2 writes them; other shapes are shown as their JSON), and what its scores found: the
judge's rationale and the invalid tool calls, from `scores.detail` and `judgements`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tracegrade.report.models import MetricScore
from tracegrade.report.queries import Row

# A message's text past this many characters is cut: a prompt holding the session's whole
# history must not make the page as large as the history.
MESSAGE_LIMIT = 4_000
# Said where the spans hold no content, so the reader knows which switch to turn.
CAPTURE_HINT = (
    "Content was not captured: set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY "
    "in the agent's environment (google-adk 2; ADK 1 captures unless "
    "ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=false), or pass capture_content=True to "
    "tracegrade.capture.configure()."
)


@dataclass(frozen=True)
class Message:
    role: str
    text: str


@dataclass(frozen=True)
class Finding:
    """One thing a metric's scorer or judge said about the turn."""

    metric: str
    kind: str
    """rationale, reason, invalid_call, sentence or judge_error"""
    text: str


def messages(document: str | None) -> list[Message]:
    """A message document as role and text per message; [] when none was captured."""
    if document is None or document in ("", "{}", "[]"):
        return []
    try:
        parsed = json.loads(document)
    except ValueError:
        return [Message("text", _clip(document))]
    if isinstance(parsed, list) and all(isinstance(m, dict) and "role" in m for m in parsed):
        return [Message(str(m["role"]), _clip(_parts_text(m.get("parts")))) for m in parsed]
    return [Message("json", _clip(json.dumps(parsed, indent=1, ensure_ascii=False)))]


def _parts_text(parts: Any) -> str:
    if not isinstance(parts, list):
        return json.dumps(parts, ensure_ascii=False)
    return "\n".join(_part_text(p) for p in parts)


def _part_text(part: Any) -> str:
    if not isinstance(part, dict):
        return str(part)
    kind = part.get("type")
    if kind == "text" and "content" in part:
        return str(part["content"])
    if kind == "tool_call":
        return f"→ call {part.get('name')}({json.dumps(part.get('arguments'), ensure_ascii=False)})"
    if kind == "tool_call_response":
        response = json.dumps(part.get("response", part.get("result")), ensure_ascii=False)
        return f"← {part.get('name') or part.get('id') or 'tool'} returned {response}"
    return json.dumps(part, ensure_ascii=False)


def findings(scores: Sequence[MetricScore], judged: Sequence[Row]) -> list[Finding]:
    """What each score's detail says beyond its number, then the judges' own rationales."""
    found = [f for s in scores for f in _detail_findings(s.metric, s.detail)]
    for row in judged:
        if row["rationale"]:
            label = f"{row['step']} (sample {row['sample']}, {row['judge_model']})"
            found.append(Finding(str(row["metric"]), "rationale", f"{label}: {row['rationale']}"))
        elif row["outcome"] != "answered":
            found.append(Finding(str(row["metric"]), "judge_error", str(row["error"] or "failed")))
    return found


def _detail_findings(metric: str, detail: Any) -> list[Finding]:
    if not isinstance(detail, dict):
        return []
    found = []
    for call in detail.get("invalid") or []:
        for error in call.get("errors") or [{}]:
            where = f"call {call.get('seq')} {call.get('name')}"
            argument = f" argument {error['argument']}" if error.get("argument") else ""
            text = f"{where}{argument}: {error.get('kind') or 'invalid'}: {error.get('message')}"
            found.append(Finding(metric, "invalid_call", text))
    for sentence in detail.get("sentences") or []:
        label = str(sentence.get("label") or "")
        if label.strip().lower() not in ("supported", "not_applicable"):
            text = f"“{sentence.get('sentence')}” is {label}: {sentence.get('rationale')}"
            found.append(Finding(metric, "sentence", text))
    for key in ("rationale", "reason", "judge_error"):
        said = str(detail.get(key) or "")
        # hallucinations_v1's rationale repeats its first unsupported sentence's: once is enough.
        if said and not any(said in f.text for f in found):
            found.append(Finding(metric, key, said))
    return found


def _clip(text: str) -> str:
    if len(text) <= MESSAGE_LIMIT:
        return text
    return f"{text[:MESSAGE_LIMIT]}… ({len(text) - MESSAGE_LIMIT:,} more characters)"
