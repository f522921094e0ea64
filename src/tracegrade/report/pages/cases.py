"""A case's view: its repeats (pass@k, flaky), and for each failed or errored repeat what
went wrong, from `explain` (the findings the terminal prints): each failing turn's expected
and actual tool calls side by side with the arguments that differ marked, the response next
to its reference, and every other text a finding carries (a judge's rationale among them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tracegrade.report import explain
from tracegrade.report.models import CaseReport, Criterion, RepeatReport
from tracegrade.report.values import compact

# A case run 500 times shows its first repeats; the findings already group repeats that
# failed alike.
REPEAT_ROWS = 20


@dataclass(frozen=True)
class Arg:
    key: str
    value: str
    """Compact JSON."""
    differs: bool


@dataclass(frozen=True)
class CallCell:
    name: str
    args: list[Arg] | None
    """None: no arguments (`f()`); [] an empty object (`f({})`)."""
    captured: bool
    name_differs: bool
    other: str | None = None
    """Arguments that are not an object, as compact JSON."""


@dataclass(frozen=True)
class CallRow:
    number: int
    expected: CallCell | None
    actual: CallCell | None
    same: bool


@dataclass(frozen=True)
class MetricView:
    headline: str
    reason: str
    calls: list[CallRow]
    texts: list[tuple[str, str]]
    """(label, text) pairs other than the response and its reference."""
    response: str | None
    reference: str | None


@dataclass(frozen=True)
class TurnFindingView:
    turn_index: int
    turn_id: str
    user_text: str | None
    metrics: list[MetricView]


@dataclass(frozen=True)
class FindingView:
    outcome: str
    """failed or errored"""
    repeats: str
    """`repeat 0`, `repeats 0, 2`"""
    turns: list[TurnFindingView]
    lines: list[str]


@dataclass(frozen=True)
class CaseView:
    run_id: str
    case: CaseReport
    findings: list[FindingView]
    repeats: list[RepeatReport]
    """The first REPEAT_ROWS repeats."""

    @property
    def more_repeats(self) -> int:
        return len(self.case.repeat_results) - len(self.repeats)


def case_view(
    run_id: str, case: CaseReport, criteria: Sequence[Criterion], repeat_rows: int = REPEAT_ROWS
) -> CaseView:
    found = [_finding("failed", f) for f in explain.failures(case, criteria)]
    found += [_finding("errored", f) for f in explain.errors(case)]
    return CaseView(run_id, case, found, case.repeat_results[:repeat_rows])


def _finding(outcome: str, finding: explain.RepeatFinding) -> FindingView:
    turns = [
        TurnFindingView(t.turn_index, t.turn_id, t.user_text, [_metric(m) for m in t.metrics])
        for t in finding.turns
    ]
    return FindingView(outcome, explain.repeats_label(finding.repeats), turns, finding.lines)


def _metric(finding: explain.MetricFinding) -> MetricView:
    texts = dict(finding.texts)
    side_by_side = "response" in texts and "reference" in texts
    others = [
        (label, text)
        for label, text in finding.texts
        if not side_by_side or label not in ("response", "reference")
    ]
    return MetricView(
        headline=finding.headline,
        reason=finding.reason,
        calls=[_row(n, pair) for n, pair in enumerate(finding.calls, 1)],
        texts=others,
        response=texts["response"] if side_by_side else None,
        reference=texts["reference"] if side_by_side else None,
    )


def _row(number: int, pair: explain.CallPair) -> CallRow:
    e, a = pair.expected_call, pair.actual_call
    return CallRow(number, _cell(e, a, True), _cell(a, e, False), pair.same)


def _cell(call: Any, other: Any, expected: bool) -> CallCell | None:
    """One side of a pair, each argument marked where the other side differs."""
    if not isinstance(call, dict):
        return None
    name, args = str(call.get("name")), call.get("args")
    other = other if isinstance(other, dict) else {}
    name_differs = other.get("name") != name
    captured = expected or args is not None
    if not isinstance(args, dict):
        shown = None if args is None else compact(args)
        return CallCell(name, None, captured, name_differs, shown)
    theirs = other.get("args") if isinstance(other.get("args"), dict) else None
    return CallCell(
        name,
        [
            Arg(key, compact(value), name_differs or theirs is None or _differs(key, value, theirs))
            for key, value in args.items()
        ],
        captured,
        name_differs,
    )


_ABSENT = object()


def _differs(key: str, value: Any, theirs: dict[str, Any]) -> bool:
    return bool(theirs.get(key, _ABSENT) != value)
