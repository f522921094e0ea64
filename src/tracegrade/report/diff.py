"""`diff_runs`: what changed, case by case, between two scored eval runs.

A case that passed and now fails (or errors) is a regression, and so is a case that got
worse beyond a tolerance: more tool calls, higher latency, cost or tokens, a lower case score
on a judged metric (or one a judge no longer evaluated). `RunDiff.regressed` is what
`tracegrade diff` (and `run --baseline`) exit 1 on. Any change in the tool-name sequence of
a turn is reported too, as a change.
Each side is read through `build_report`, so the diff sees exactly what the reports show.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tracegrade.report.models import CaseReport, TurnReport
from tracegrade.report.queries import find_scoring
from tracegrade.report.run import build_report
from tracegrade.report.values import ms, num, usd
from tracegrade.store.reader import Reader

ChangeKind = Literal[
    "regressed",
    "fixed",
    "verdict_changed",
    "trajectory_changed",
    "more_tool_calls",
    "latency_up",
    "cost_up",
    "tokens_up",
    "score_down",
]


# Per repeat: each turn's tool names in call order.
Trajectory = tuple[tuple[str, ...], ...]


class DiffTolerances(BaseModel):
    """How much worse a case may get before the diff reports it."""

    model_config = ConfigDict(frozen=True)

    latency_pct: float = Field(default=20, ge=0, description="mean turn latency, % increase")
    latency_ms: float = Field(
        default=50,
        ge=0,
        description="and by more than this many ms (a fast turn's jitter is no regression)",
    )
    cost_pct: float = Field(default=10, ge=0, description="cost per repeat, % increase")
    tokens_pct: float = Field(default=10, ge=0, description="tokens per repeat, % increase")
    tool_calls: float = Field(default=0, ge=0, description="more tool calls per repeat than this")
    score_drop: float = Field(
        default=0.05, ge=0, description="a judged metric's case score falling by more than this"
    )


OVER_TOLERANCE: frozenset[ChangeKind] = frozenset(
    {"more_tool_calls", "latency_up", "cost_up", "tokens_up", "score_down"}
)
"""Changes found only beyond a tolerance: each one fails the diff."""


class CaseChange(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: ChangeKind
    message: str


class CaseDiff(BaseModel):
    model_config = ConfigDict(frozen=True)

    eval_set_id: str
    case_id: str
    base_verdict: str
    new_verdict: str
    changes: list[CaseChange]

    @property
    def regressed(self) -> bool:
        """It passed before and does not now."""
        return any(c.kind == "regressed" for c in self.changes)

    @property
    def over_tolerance(self) -> bool:
        """It got worse beyond a tolerance (tool calls, latency, cost, tokens, a judged score)."""
        return any(c.kind in OVER_TOLERANCE for c in self.changes)


class RunDiff(BaseModel):
    model_config = ConfigDict(frozen=True)

    base_run_id: str
    new_run_id: str
    base_scoring_id: str
    new_scoring_id: str
    tolerances: DiffTolerances
    cases: list[CaseDiff] = Field(description="cases in both runs, changed or not")
    only_in_base: list[str] = Field(description="eval_set/case ids the new run did not run")
    only_in_new: list[str]
    regressed: bool = Field(
        description="a case that passed now fails or errors, or got worse beyond a tolerance"
    )


def check_baseline(reader: Reader, run_id: str) -> None:
    """Refuse a baseline that is not a scored run (a typo) before anything is diffed
    against it: `tracegrade run --baseline` checks it before the first case runs."""
    find_scoring(reader, None, run_id)


def diff_runs(
    reader: Reader,
    base_run_id: str,
    new_run_id: str,
    tolerances: DiffTolerances | None = None,
) -> RunDiff:
    """Compares the latest scoring of each run."""
    tolerances = tolerances or DiffTolerances()
    base = build_report(reader, run_id=base_run_id)
    new = build_report(reader, run_id=new_run_id)
    base_cases = {(c.eval_set_id, c.case_id): c for c in base.cases}
    new_cases = {(c.eval_set_id, c.case_id): c for c in new.cases}
    both = sorted(base_cases.keys() & new_cases.keys())
    judged = {u.metric for u in base.judges} & {u.metric for u in new.judges}
    cases = [_case_diff(base_cases[k], new_cases[k], tolerances, judged) for k in both]
    return RunDiff(
        base_run_id=base_run_id,
        new_run_id=new_run_id,
        base_scoring_id=base.scoring.scoring_id,
        new_scoring_id=new.scoring.scoring_id,
        tolerances=tolerances,
        cases=cases,
        only_in_base=[f"{s}/{c}" for s, c in sorted(base_cases.keys() - new_cases.keys())],
        only_in_new=[f"{s}/{c}" for s, c in sorted(new_cases.keys() - base_cases.keys())],
        regressed=any(c.regressed or c.over_tolerance for c in cases),
    )


@dataclass(frozen=True)
class _Profile:
    """One case's numbers, per repeat that ran to the end (errored repeats are left out)."""

    tool_calls: float | None
    latency_ms: float | None
    tokens: float | None
    cost_usd: float | None
    trajectories: tuple[Trajectory, ...]
    """Each distinct trajectory among the repeats."""

    @classmethod
    def of(cls, case: CaseReport) -> _Profile:
        repeats = [r.turns for r in case.repeat_results if r.verdict != "error" and r.turns]
        turns = [t for ts in repeats for t in ts]
        latencies = [t.latency_ms for t in turns if t.latency_ms is not None]
        return cls(
            tool_calls=_mean([sum(len(t.tool_calls) for t in ts) for ts in repeats]),
            latency_ms=_mean(latencies),
            tokens=_mean([_total(ts, "total_tokens") for ts in repeats]),
            cost_usd=_mean([_total(ts, "cost_usd") for ts in repeats]),
            trajectories=tuple(sorted({_names(ts) for ts in repeats})),
        )


def _total(turns: list[TurnReport], field: str) -> float | None:
    """A repeat's sum, or None when any turn's value is unknown (never counted as 0)."""
    values = [getattr(t, field) for t in turns]
    return None if any(v is None for v in values) else float(sum(values))


def _mean(values: list[float | None] | list[float] | list[int]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known and len(known) == len(values) else None


def _names(turns: list[TurnReport]) -> Trajectory:
    return tuple(tuple(c.name for c in t.tool_calls) for t in turns)


def _case_diff(
    base: CaseReport, new: CaseReport, tolerances: DiffTolerances, scored: set[str]
) -> CaseDiff:
    before, after = _Profile.of(base), _Profile.of(new)
    return CaseDiff(
        eval_set_id=base.eval_set_id,
        case_id=base.case_id,
        base_verdict=base.verdict,
        new_verdict=new.verdict,
        changes=[
            *_verdict_change(base.verdict, new.verdict),
            *_trajectory_change(before.trajectories, after.trajectories),
            *_increases(before, after, tolerances),
            *_scores_down(base, new, sorted(scored), tolerances.score_drop),
        ],
    )


def _scores_down(
    base: CaseReport, new: CaseReport, metrics: list[str], drop: float
) -> list[CaseChange]:
    """Judged metrics whose case score fell, or is no longer evaluated (the judge failed)."""
    changes = []
    for metric in metrics:
        before, after = _case_score(base, metric), _case_score(new, metric)
        if before is None or (after is not None and before - after <= drop):
            continue
        shown = "not evaluated" if after is None else num(after)
        changes.append(CaseChange(kind="score_down", message=f"{metric} {num(before)} → {shown}"))
    return changes


def _case_score(case: CaseReport, metric: str) -> float | None:
    """The metric's case score, averaged over the repeats that have one."""
    scores = [s.score for r in case.repeat_results for s in r.scores if s.metric == metric]
    return _mean([score for score in scores if score is not None])


def _verdict_change(before: str, after: str) -> list[CaseChange]:
    if before == after:
        return []
    if before == "passed":
        kind: ChangeKind = "regressed"
    else:
        kind = "fixed" if after == "passed" else "verdict_changed"
    return [CaseChange(kind=kind, message=f"verdict {before} → {after}")]


def _trajectory_change(
    before: tuple[Trajectory, ...], after: tuple[Trajectory, ...]
) -> list[CaseChange]:
    if not before or not after or before == after:
        return []  # a side with no complete repeat has no trajectory to compare
    message = f"tools called {_shown(before)} → {_shown(after)}"
    return [CaseChange(kind="trajectory_changed", message=message)]


def _shown(trajectories: tuple[Trajectory, ...]) -> str:
    """Turns joined by " | ", different repeats' trajectories by " or "."""
    return " or ".join(
        " | ".join(", ".join(names) or "no calls" for names in turns) for turns in trajectories
    )


def _increases(before: _Profile, after: _Profile, tol: DiffTolerances) -> list[CaseChange]:
    def plain(value: float | None) -> str:
        return f"{value:,.6g}"

    found = [
        _increase("more_tool_calls", "tool calls per repeat", before.tool_calls,
                  after.tool_calls, plain, absolute=tol.tool_calls),
        _increase("latency_up", "mean turn latency (ms)", before.latency_ms, after.latency_ms,
                  ms, pct=tol.latency_pct, absolute=tol.latency_ms),
        _increase("cost_up", "cost per repeat", before.cost_usd, after.cost_usd, usd,
                  pct=tol.cost_pct),
        _increase("tokens_up", "tokens per repeat", before.tokens, after.tokens, plain,
                  pct=tol.tokens_pct),
    ]  # fmt: skip
    return [change for change in found if change is not None]


def _increase(
    kind: ChangeKind,
    what: str,
    before: float | None,
    after: float | None,
    shown: Callable[[float | None], str],
    pct: float | None = None,
    absolute: float = 0,
) -> CaseChange | None:
    """A change when `after` exceeds `before` by more than `absolute`, or by more than
    `pct` percent of it."""
    if before is None or after is None or after - before <= absolute:
        return None
    message = f"{what} {shown(before)} → {shown(after)}"
    if pct is not None:
        if before == 0 or (after - before) / before * 100 <= pct:
            return None
        message += f" (+{(after - before) / before:.0%}, tolerance {pct:g}%)"
    return CaseChange(kind=kind, message=message)
