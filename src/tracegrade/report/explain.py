"""Why a case failed or errored, in words: the findings the terminal, JUnit and the pytest
plugin show.

For each failed repeat: the turns whose gating metrics failed, each with a one-line reason
(`trajectory_reason`: how the actual tool calls differ from the expected ones), the expected
and actual trajectories side by side, the response against its reference, and a judge's
rationale for each rubric, sentence, task or argument it failed. Repeats that
failed the same way are shown once ("repeats 0, 1").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import zip_longest
from typing import Any

from tracegrade.report.judges import is_judged, judged_texts
from tracegrade.report.models import (
    CaseReport,
    Criterion,
    ErrorInfo,
    MetricScore,
    RepeatReport,
    TurnReport,
)
from tracegrade.report.values import DASH, call, compact, comparator, num, plural


@dataclass(frozen=True)
class CallPair:
    expected: str
    actual: str
    same: bool
    expected_call: Any = None
    """The calls as the scorer saw them ({name, args}), for argument-level differences."""
    actual_call: Any = None


@dataclass(frozen=True)
class MetricFinding:
    headline: str
    """`metric score, needs ≥ t`"""
    reason: str = ""
    calls: list[CallPair] = field(default_factory=list)
    texts: list[tuple[str, str]] = field(default_factory=list)
    """(label, text) pairs: the response and its reference."""


@dataclass(frozen=True)
class TurnFinding:
    turn_index: int
    user_text: str | None
    metrics: list[MetricFinding]
    tool_errors: list[str] = field(default_factory=list)
    """The turn's failed tool calls, a line each with the tool's own message."""
    turn_id: str = field(default="", compare=False)
    """The first repeat's, where repeats failed alike."""


@dataclass(frozen=True)
class RepeatFinding:
    repeats: list[int]
    turns: list[TurnFinding]
    lines: list[str] = field(default_factory=list)
    """For errors: what went wrong, a line each."""


def failures(case: CaseReport, criteria: Sequence[Criterion]) -> list[RepeatFinding]:
    better = {c.metric: c.better for c in criteria}
    found = [
        (r.repeat, [t for t in (_turn(turn, better) for turn in r.turns) if t.metrics])
        for r in case.repeat_results
        if r.verdict == "failed"
    ]
    return _grouped(found, lambda repeats, turns: RepeatFinding(repeats, turns))


def errors(case: CaseReport) -> list[RepeatFinding]:
    found = [(r.repeat, _error_lines(r)) for r in case.repeat_results if r.verdict == "error"]
    return _grouped(found, lambda repeats, lines: RepeatFinding(repeats, [], lines))


def _grouped(
    found: list[tuple[int, Any]], make: Callable[[list[int], Any], RepeatFinding]
) -> list[RepeatFinding]:
    """Repeats with equal findings become one finding naming them all."""
    groups: list[tuple[list[int], Any]] = []
    for repeat, content in found:
        match = next((g for g in groups if g[1] == content), None)
        if match:
            match[0].append(repeat)
        else:
            groups.append(([repeat], content))
    return [make(repeats, content) for repeats, content in groups]


def _turn(turn: TurnReport, better: Mapping[str, str | None]) -> TurnFinding:
    failed = [s for s in turn.scores if s.gating and s.status == "failed"]
    failed.sort(key=lambda s: (_kind(s), s.metric))
    metrics = [_metric(s, turn, better) for s in failed]
    return TurnFinding(turn.turn_index, turn.user_text, metrics, _tool_errors(turn), turn.turn_id)


def _tool_errors(turn: TurnReport) -> list[str]:
    """`tool lookup(isbn="000") returned an error: unknown isbn 000`, a failed call a line."""
    return [
        f"tool {call(c.name, c.args, c.args_captured)} {_failed_how(c.error)}: "
        f"{c.error.message or c.error.type or DASH}"
        for c in turn.tool_calls
        if c.error is not None
    ]


def _failed_how(error: ErrorInfo) -> str:
    # ADK marks a tool that returned {"error": ...} with error.type TOOL_ERROR.
    return "returned an error" if error.type == "TOOL_ERROR" else "raised"


def _kind(score: MetricScore) -> int:
    """Trajectory metrics first, then response metrics, then judged ones, then budgets."""
    detail = score.detail if isinstance(score.detail, dict) else {}
    if "expected" in detail and "actual" in detail:
        return 0
    if "reference_missing" in detail:
        return 1
    return 2 if is_judged(detail) else 3


def _metric(
    score: MetricScore, turn: TurnReport, better: Mapping[str, str | None]
) -> MetricFinding:
    detail: dict[str, Any] = score.detail if isinstance(score.detail, dict) else {}
    bound = f"needs {comparator(better.get(score.metric))} {num(score.threshold)}"
    head = f"{score.metric} {num(score.score)}, {bound}"
    kind = _kind(score)
    if kind == 0:
        expected, actual = detail.get("expected") or [], detail.get("actual") or []
        reason = trajectory_reason(expected, actual, str(detail.get("match_type") or "EXACT"))
        # The detail gives a reason only when the arguments were not captured.
        captured = not detail.get("reason")
        return MetricFinding(
            head, detail.get("reason") or reason, _pairs(expected, actual, captured)
        )
    if kind == 1:
        missing = bool(detail.get("reference_missing"))
        reason = "the eval set gives no reference response" if missing else "response differs"
        texts = [("response", turn.final_text or DASH), ("reference", turn.reference_text or DASH)]
        return MetricFinding(head, reason, texts=texts)
    if kind == 2:
        reason, lines = judged_texts(detail)
        if "votes" in detail:  # a judge compared the response with its reference
            lines += [
                ("response", turn.final_text or DASH),
                ("reference", turn.reference_text or DASH),
            ]
        return MetricFinding(head, reason, texts=lines)
    return _call_problems(head, detail)


def _call_problems(head: str, detail: dict[str, Any]) -> MetricFinding:
    """Which calls were invalid (tool_call_validity) or failed (tool_error_rate), and why."""
    if isinstance(detail.get("invalid"), list) and detail["invalid"]:
        invalid = detail["invalid"]
        texts = [
            (f"call {c['seq']} {c['name']}", _problem(p))
            for c in invalid
            for p in c.get("errors") or []
        ]
        return MetricFinding(
            head, f"{len(invalid)} of {detail.get('calls')} calls invalid", texts=texts
        )
    if isinstance(detail.get("errors"), list) and detail["errors"]:
        errors = detail["errors"]
        texts = [(e["name"], f"{e['kind']}: {e.get('message') or DASH}") for e in errors]
        return MetricFinding(
            head, f"{len(errors)} of {detail.get('calls')} calls failed", texts=texts
        )
    return MetricFinding(head, str(detail.get("reason") or ""))


def _problem(problem: dict[str, Any]) -> str:
    where = f"{problem['argument']}: " if problem.get("argument") else ""
    return f"{where}{problem['message']} ({problem['kind']})"


def _pairs(expected: list[Any], actual: list[Any], captured: bool) -> list[CallPair]:
    pairs = []
    for e, a in zip_longest(expected, actual):
        shown_e = call(e["name"], e.get("args")) if e else DASH
        # An actual call's args are null when they were not captured, or the model sent none.
        known = captured or bool(a and a.get("args") is not None)
        shown_a = call(a["name"], a.get("args"), known) if a else DASH
        pairs.append(CallPair(shown_e, shown_a, e == a, e, a))
    return pairs


def _error_lines(repeat: RepeatReport) -> list[str]:
    lines = []
    for turn in repeat.turns:
        if turn.error is None:
            continue
        lines.append(f"turn {turn.turn_index}: {turn.error.message or turn.error.type or 'error'}")
        lines.extend(f"  {line}" for line in _tool_errors(turn))
    return lines


def repeats_label(repeats: Sequence[int]) -> str:
    word = "repeat" if len(repeats) == 1 else "repeats"
    return f"{word} {', '.join(str(r) for r in repeats)}"


def as_lines(finding: RepeatFinding, indent: str = "") -> list[str]:
    """A finding as plain text lines, trajectories side by side."""
    lines = [f"{indent}{line}" for line in finding.lines]
    for turn in finding.turns:
        said = f' "{turn.user_text}"' if turn.user_text else ""
        lines.append(f"{indent}turn {turn.turn_index}{said}")
        for metric in turn.metrics:
            lines.append(f"{indent}  {metric.headline}")
            if metric.reason:
                lines.append(f"{indent}    {metric.reason}")
            lines.extend(f"{indent}    {line}" for line in side_by_side(metric.calls))
            width = max((len(label) for label, _ in metric.texts), default=0)
            lines.extend(f"{indent}    {label:<{width}}  {text}" for label, text in metric.texts)
        lines.extend(f"{indent}  {line}" for line in turn.tool_errors)
    return lines


def side_by_side(pairs: Sequence[CallPair]) -> list[str]:
    if not pairs:
        return []
    width = max(len("expected"), *(len(p.expected) for p in pairs))
    rows = [f"   {'expected':<{width}}    actual"]
    for number, pair in enumerate(pairs, 1):
        mark = "  " if pair.same else "≠ "
        rows.append(f"{number:>2} {pair.expected:<{width}}  {mark}{pair.actual}")
    return rows


# One line saying how an actual tool trajectory differs from the expected one:
# "expected show_cart() with no args, got show_cart({})", "missing price(item="pear")",
# "same calls in a different order". The first difference is named, as a reader would look
# for it; the scorer decided pass or fail, this only explains.

Call = dict[str, Any]


def trajectory_reason(expected: list[Call], actual: list[Call], match_type: str) -> str:
    reason = _reason(expected, actual)
    return reason if match_type == "EXACT" else f"{reason} ({match_type} match)"


def _reason(expected: list[Call], actual: list[Call]) -> str:
    names_e, names_a = [c["name"] for c in expected], [c["name"] for c in actual]
    if names_e == names_a:
        for e, a in zip(expected, actual, strict=True):
            if e != a:
                return args_reason(e, a)
        return "the calls match"
    if Counter(names_e) == Counter(names_a):
        return f"same calls in a different order: expected {_names(names_e)}, got {_names(names_a)}"
    return _missing_and_extra(expected, actual)


_ABSENT = object()


def args_reason(expected: Call, actual: Call) -> str:
    name, want, got = expected["name"], expected.get("args"), actual.get("args")
    if got is None:
        return f"expected {call(name, want)}, got {name}() with no args"
    if want is None:
        return f"expected {name}() with no args, got {call(name, got)}"
    if isinstance(want, dict) and isinstance(got, dict):
        keys = sorted(
            k for k in want.keys() | got.keys() if want.get(k, _ABSENT) != got.get(k, _ABSENT)
        )
        return f"{name}: " + "; ".join(_key_difference(k, want, got) for k in keys)
    return f"expected {call(name, want)}, got {call(name, got)}"


def _key_difference(key: str, want: dict[str, Any], got: dict[str, Any]) -> str:
    if key not in got:
        return f"{key} missing (expected {compact(want[key])})"
    if key not in want:
        return f"unexpected {key}={compact(got[key])}"
    return f"{key} expected {compact(want[key])}, got {compact(got[key])}"


def _missing_and_extra(expected: list[Call], actual: list[Call]) -> str:
    unmatched = Counter(c["name"] for c in actual)
    missing = []
    for c in expected:
        if unmatched[c["name"]]:
            unmatched[c["name"]] -= 1
        else:
            missing.append(call(c["name"], c.get("args")))
    unexpected = []
    for c in actual:  # the first calls of each surplus name count as the unexpected ones
        if unmatched[c["name"]]:
            unmatched[c["name"]] -= 1
            unexpected.append(call(c["name"], c.get("args")))
    parts = [f"missing {', '.join(missing)}"] if missing else []
    parts += [f"unexpected {', '.join(unexpected)}"] if unexpected else []
    return f"expected {plural(len(expected), 'call')}, got {len(actual)}: {'; '.join(parts)}"


def _names(names: list[str]) -> str:
    return ", ".join(names) or "no calls"
