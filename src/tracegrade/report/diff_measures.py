"""What `diff_runs` measures of one case on each side: tool calls, latency, cost, tokens and
judged scores (each a `MetricDiff` with its tolerance), the trajectory and the verdict."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tracegrade.report.models import CaseReport, TurnReport
from tracegrade.report.values import DASH, ms, num, usd

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

OVER_TOLERANCE: frozenset[ChangeKind] = frozenset(
    {"more_tool_calls", "latency_up", "cost_up", "tokens_up", "score_down"}
)
"""Changes found only beyond a tolerance: each one fails the diff."""

# Per repeat: each turn's tool names in call order.
Trajectory = tuple[tuple[str, ...], ...]


class DiffTolerances(BaseModel):
    """How much worse a case may get before it fails the diff."""

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
    rate_rise: float = Field(
        default=0.05,
        ge=0,
        description="traffic: a share of turns (errored, over a budget) rising by more than this",
    )


class CaseChange(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: ChangeKind
    message: str


class MetricDiff(BaseModel):
    """One measure of a case on both sides. `worse`: beyond its tolerance the bad way (a
    judged score no longer evaluated counts as worse); that fails the diff."""

    model_config = ConfigDict(frozen=True)

    metric: str = Field(description="tool_calls, latency_ms, cost_usd, tokens or a judged metric")
    label: str = Field(description="what it is, in words")
    kind: ChangeKind = Field(description="the change it is when worse")
    before: float | None
    after: float | None
    delta: float | None = Field(description="after - before; null when a side is unknown")
    tolerance: str = Field(description="how much worse it may get, in words")
    worse: bool
    message: str = Field(description="before → after, in words")


@dataclass(frozen=True)
class Profile:
    """One case's numbers, per repeat that ran to the end (errored repeats are left out)."""

    tool_calls: float | None
    latency_ms: float | None
    tokens: float | None
    cost_usd: float | None
    trajectories: tuple[Trajectory, ...]
    """Each distinct trajectory among the repeats."""

    @classmethod
    def of(cls, case: CaseReport) -> Profile:
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


def measures(before: Profile, after: Profile, tol: DiffTolerances) -> list[MetricDiff]:
    """Tool calls, latency, cost and tokens: worse when `after` exceeds `before` by more than
    the absolute tolerance and (where there is one) by more than the percentage."""
    latency = f"+{tol.latency_pct:g}% and +{tol.latency_ms:g} ms"
    return [
        _rise("tool_calls", before.tool_calls, after.tool_calls, f"+{tol.tool_calls:g}",
              None, tol.tool_calls),
        _rise("latency_ms", before.latency_ms, after.latency_ms, latency, tol.latency_pct,
              tol.latency_ms),
        _rise("cost_usd", before.cost_usd, after.cost_usd, f"+{tol.cost_pct:g}%", tol.cost_pct),
        _rise("tokens", before.tokens, after.tokens, f"+{tol.tokens_pct:g}%", tol.tokens_pct),
    ]  # fmt: skip


def _plain(value: float | None) -> str:
    return DASH if value is None else f"{value:,.6g}"


_RISES: dict[str, tuple[ChangeKind, str, Callable[[float | None], str]]] = {
    "tool_calls": ("more_tool_calls", "tool calls per repeat", _plain),
    "latency_ms": ("latency_up", "mean turn latency (ms)", ms),
    "cost_usd": ("cost_up", "cost per repeat", usd),
    "tokens": ("tokens_up", "tokens per repeat", _plain),
}


def _rise(
    metric: str,
    before: float | None,
    after: float | None,
    tolerance: str,
    pct: float | None,
    absolute: float = 0,
) -> MetricDiff:
    kind, what, shown = _RISES[metric]
    message = f"{what} {shown(before)} → {shown(after)}"
    if before is None or after is None:
        delta, worse = None, False
    else:
        delta = round(after - before, 10)  # as the report rounds its sums: no float noise
        worse = delta > absolute and (pct is None or (before != 0 and delta / before * 100 > pct))
        if pct is not None and before != 0:
            message += f" ({delta / before:+.0%}, tolerance {pct:g}%)"
    return MetricDiff(
        metric=metric, label=what, kind=kind, before=before, after=after, delta=delta,
        tolerance=tolerance, worse=worse, message=message,
    )  # fmt: skip


def judged(base: CaseReport, new: CaseReport, metrics: list[str], drop: float) -> list[MetricDiff]:
    """Judged metrics scored on the base side: worse when the case score fell by more than
    `drop`, or is no longer evaluated (the judge failed)."""
    return [
        _drop(metric, _case_score(base, metric), _case_score(new, metric), drop)
        for metric in metrics
        if _case_score(base, metric) is not None
    ]


def _drop(metric: str, before: float | None, after: float | None, drop: float) -> MetricDiff:
    delta = None if before is None or after is None else round(after - before, 10)
    return MetricDiff(
        metric=metric, label=metric, kind="score_down", before=before, after=after,
        delta=delta, tolerance=f"-{drop:g}", worse=delta is None or -delta > drop,
        message=f"{metric} {num(before)} → {'not evaluated' if after is None else num(after)}",
    )  # fmt: skip


def verdict_change(before: str, after: str) -> list[CaseChange]:
    if before == after:
        return []
    if before == "passed":
        kind: ChangeKind = "regressed"
    else:
        kind = "fixed" if after == "passed" else "verdict_changed"
    return [CaseChange(kind=kind, message=f"verdict {before} → {after}")]


def trajectory_change(before: Profile, after: Profile) -> list[CaseChange]:
    old, new = before.trajectories, after.trajectories
    if not old or not new or old == new:
        return []  # a side with no complete repeat has no trajectory to compare
    message = f"tools called {_shown(old)} → {_shown(new)}"
    return [CaseChange(kind="trajectory_changed", message=message)]


def _shown(trajectories: tuple[Trajectory, ...]) -> str:
    """Turns joined by " | ", different repeats' trajectories by " or "."""
    return " or ".join(
        " | ".join(", ".join(names) or "no calls" for names in turns) for turns in trajectories
    )


def _case_score(case: CaseReport, metric: str) -> float | None:
    """The metric's case score, averaged over the repeats that have one."""
    scores = [s.score for r in case.repeat_results for s in r.scores if s.metric == metric]
    return _mean([score for score in scores if score is not None])


def _total(turns: list[TurnReport], field: str) -> float | None:
    """A repeat's sum, or None when any turn's value is unknown (never counted as 0)."""
    values = [getattr(t, field) for t in turns]
    return None if any(v is None for v in values) else float(sum(values))


def _mean(values: list[float | None] | list[float] | list[int]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known and len(known) == len(values) else None


def _names(turns: list[TurnReport]) -> Trajectory:
    return tuple(tuple(c.name for c in t.tool_calls) for t in turns)
