"""A turn's view: what the turn was (case, user text, answer, latency, tokens, scores) and
its span waterfall: every span of the turn in start order, indented by depth, with a bar
placed on the turn's time axis, tokens per model call, tool arguments and results where
they were captured, and errors marked.

The waterfall is an HTML table whose bars are positioned in CSS percentages, so it reads
without JavaScript and each span is one row a test can find.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from tracegrade.report.models import MetricScore
from tracegrade.report.pages.sql import rows
from tracegrade.report.pages.turn_content import Finding, Message, findings, messages
from tracegrade.report.queries import Row, find_scoring, iso_utc
from tracegrade.report.run.build import metric_score
from tracegrade.report.summary import scoring_info
from tracegrade.report.values import as_float, as_int, as_list, as_str
from tracegrade.store.reader import Reader

# A span's texts past this many characters are cut (and say so): a tool that returned a
# document must not make the page as large as the document.
TEXT_LIMIT = 2_000
TRACEBACK_LIMIT = 8_000
# The narrowest bar, in % of the turn: a span of 0.1 ms in a 10 s turn stays visible.
_MIN_WIDTH_PCT = 0.3


@dataclass(frozen=True)
class SpanRow:
    span_id: str
    name: str
    op: str
    depth: int
    offset_ms: float
    duration_ms: float
    left_pct: float
    width_pct: float
    is_error: bool
    error: str | None
    model: str | None
    input_tokens: int | None
    output_tokens: int | None
    tool_args: str | None
    tool_result: str | None
    input_messages: list[Message]
    output_messages: list[Message]
    traceback: str | None
    """The exception's stack trace, as OTel recorded it on the span."""


@dataclass(frozen=True)
class TurnView:
    turn_id: str
    run_id: str | None
    eval_set_id: str | None
    case_id: str | None
    repeat: int | None
    turn_index: int | None
    session_id: str | None
    root_agent: str | None
    started_at: str | None
    latency_ms: float | None
    llm_calls: int | None
    tool_calls: int | None
    tool_errors: int | None
    input_tokens: int | None
    output_tokens: int | None
    total_tokens: int | None
    models: list[str]
    user_text: str | None
    final_text: str | None
    error: str | None
    scores: list[MetricScore]
    spans: list[SpanRow]
    service_name: str | None = None
    service_version: str | None = None
    findings: list[Finding] = field(default_factory=list)
    """What the scores' details and the judges said (filled on a turn's own page)."""

    @property
    def content_captured(self) -> bool:
        """Whether any model call's messages or tool's arguments were recorded."""
        return any(
            s.input_messages or s.output_messages or s.tool_args is not None for s in self.spans
        )

    @property
    def label(self) -> str:
        if self.case_id is None:
            return f"turn {self.turn_id}"
        return f"{self.eval_set_id}/{self.case_id} repeat {self.repeat} turn {self.turn_index}"


def build_turn_views(
    reader: Reader, turn_ids: Sequence[str], scoring_id: str | None
) -> list[TurnView]:
    """The given turns, in the order given (unknown ids are left out), with their scores in
    `scoring_id` (none when it is None)."""
    if not turn_ids:
        return []
    traces = sorted({turn_id.split("-", 1)[0] for turn_id in turn_ids})
    facts = {r["turn_id"]: r for r in rows(reader, "turns_by_id", traces, list(turn_ids))}
    return turn_views(reader, [facts[t] for t in turn_ids if t in facts], scoring_id)


def turn_views(reader: Reader, facts: Sequence[Row], scoring_id: str | None) -> list[TurnView]:
    """Turn views from rows of the turns view's facts (as turns_by_id.sql selects them):
    their spans and scores read in one query each."""
    if not facts:
        return []
    spans: dict[str, list[Row]] = defaultdict(list)
    traces = sorted({str(f["trace_id"]) for f in facts})
    for row in rows(reader, "trace_spans", traces, traces):
        spans[row["trace_id"]].append(row)
    scores: dict[str, list[MetricScore]] = defaultdict(list)
    if scoring_id is not None:
        criteria = scoring_info(find_scoring(reader, scoring_id, None)).criteria
        gating = {c.metric for c in criteria}
        ids = [str(f["turn_id"]) for f in facts]
        for row in rows(reader, "turn_scores", scoring_id, ids):
            scores[row["turn_id"]].append(metric_score(row, gating))
    return [_view(f, _subtree(spans[f["trace_id"]], f), scores[f["turn_id"]]) for f in facts]


def _view(row: Row, spans: list[SpanRow], scores: list[MetricScore]) -> TurnView:
    return TurnView(
        turn_id=str(row["turn_id"]),
        run_id=as_str(row["run_id"]),
        eval_set_id=as_str(row["eval_set_id"]),
        case_id=as_str(row["case_id"]),
        repeat=as_int(row["repeat"]),
        turn_index=as_int(row["turn_index"]),
        session_id=as_str(row["session_id"]),
        root_agent=as_str(row["root_agent"]),
        started_at=iso_utc(row["started_us"]),
        latency_ms=as_float(row["latency_ms"]),
        llm_calls=as_int(row["llm_calls"]),
        tool_calls=as_int(row["tool_calls"]),
        tool_errors=as_int(row["tool_errors"]),
        input_tokens=as_int(row["input_tokens"]),
        output_tokens=as_int(row["output_tokens"]),
        total_tokens=as_int(row["total_tokens"]),
        models=[str(m) for m in as_list(row["models"])],
        user_text=as_str(row["user_text"]),
        final_text=as_str(row["final_text"]),
        error=_error_text(row["error_type"], row["error_message"]) if row["is_error"] else None,
        scores=scores,
        spans=spans,
        service_name=as_str(row.get("service_name")),
        service_version=as_str(row.get("service_version")),
    )


def with_findings(reader: Reader, view: TurnView) -> TurnView:
    """The turn with what its scores' details and the judges' answers say about it."""
    judged = rows(reader, "turn_judgements", view.turn_id)
    return replace(view, findings=findings(view.scores, judged))


def _subtree(trace: list[Row], turn: Row) -> list[SpanRow]:
    """The spans under the turn's root span (itself included), in start order, each with
    its depth below the root and its bar on the turn's time axis."""
    children: dict[str, list[Row]] = defaultdict(list)
    for span in trace:
        children[str(span["parent_span_id"])].append(span)
    root = next((s for s in trace if s["span_id"] == turn["root_span_id"]), None)
    if root is None:
        return []
    depth: dict[str, int] = {}
    stack = [(root, 0)]
    while stack:
        span, level = stack.pop()
        depth[span["span_id"]] = level
        stack.extend((child, level + 1) for child in children[span["span_id"]])
    mine = [s for s in trace if s["span_id"] in depth]  # the trace is in start order
    start = int(root["start_ns"])
    total = max(max(int(s["end_ns"]) for s in mine) - start, 1)
    return [_span(s, depth[s["span_id"]], start, total) for s in mine]


def _span(row: Row, depth: int, turn_start: int, turn_ns: int) -> SpanRow:
    begin, end = int(row["start_ns"]) - turn_start, int(row["end_ns"]) - turn_start
    left = 100 * begin / turn_ns
    return SpanRow(
        span_id=str(row["span_id"]),
        name=str(row["name"]),
        op=str(row["op"] or "other"),
        depth=depth,
        offset_ms=begin / 1e6,
        duration_ms=(end - begin) / 1e6,
        left_pct=left,
        width_pct=min(max(100 * (end - begin) / turn_ns, _MIN_WIDTH_PCT), 100 - left),
        is_error=bool(row["is_error"]),
        error=_span_error(row) if row["is_error"] else None,
        model=as_str(row["model"]),
        input_tokens=as_int(row["input_tokens"]),
        output_tokens=as_int(row["output_tokens"]),
        tool_args=clip(as_str(row["tool_args"])),
        tool_result=clip(as_str(row["tool_result"])),
        input_messages=messages(as_str(row["input_messages"])),
        output_messages=messages(as_str(row["output_messages"])),
        traceback=clip(as_str(row["exception_stacktrace"]), TRACEBACK_LIMIT),
    )


def _span_error(row: Row) -> str:
    kind = row["exception_type"] or row["error_type"]
    message = row["exception_message"] or row["status_message"]
    return _error_text(kind, message)


def _error_text(kind: object, message: object) -> str:
    parts = [str(p) for p in (kind, message) if p]
    return ": ".join(parts) or "error"


def clip(text: str | None, limit: int = TEXT_LIMIT) -> str | None:
    if text is None or len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters)"
