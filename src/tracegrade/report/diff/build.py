"""`diff_runs`: what changed, case by case, between two scored eval runs — one model that
the terminal, Markdown, JSON and the pages only render, so they cannot disagree.

Each case gets one category, the first that fits:
- `regressed`: it passed and now fails or errors;
- `worse`: a measure got worse beyond its tolerance (more tool calls, higher latency, cost
  or tokens, a judged metric's case score down, or no longer evaluated), whatever the verdict;
- `improved`: it passes now and did not before;
- `changed`: its verdict (e.g. failed → error) or tool-name sequence changed, nothing worse;
- `unchanged`; and `new` / `gone` for a case in one run only.
`regressed` and `worse` fail the diff (`RunDiff.failed`): `tracegrade diff` and
`run --baseline` exit 1. Each side is read through `build_report`, so the diff sees exactly
what the reports show.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tracegrade.report.diff_measures import (
    OVER_TOLERANCE,
    CaseChange,
    ChangeKind,
    DiffTolerances,
    MetricDiff,
    Profile,
    judged,
    measures,
    trajectory_change,
    verdict_change,
)
from tracegrade.report.models import CaseReport, RunReport
from tracegrade.report.run.build import build_report
from tracegrade.report.values import plural
from tracegrade.store.reader import Reader

__all__ = [
    "CATEGORIES",
    "OVER_TOLERANCE",
    "CaseChange",
    "CaseDiff",
    "Category",
    "ChangeKind",
    "DiffTolerances",
    "DiffTotals",
    "MetricDiff",
    "RunDiff",
    "diff_reports",
    "diff_runs",
]

Category = Literal["regressed", "worse", "improved", "changed", "unchanged", "new", "gone"]

CATEGORIES: dict[Category, str] = {
    "regressed": "Regressed: passed before, not now",
    "worse": "Worse beyond a tolerance",
    "improved": "Improved: passes now",
    "changed": "Changed, no worse",
    "new": "Only in the new run",
    "gone": "Only in the base run",
    "unchanged": "Unchanged",
}
"""Each category's title, most serious first: the order every renderer lists them in."""

FAILING: frozenset[Category] = frozenset({"regressed", "worse"})


class CaseDiff(BaseModel):
    model_config = ConfigDict(frozen=True)

    eval_set_id: str
    case_id: str
    base_verdict: str | None = Field(description="null: not in the base run")
    new_verdict: str | None = Field(description="null: not in the new run")
    category: Category
    reason: str = Field(description="why this category, in words")
    metrics: list[MetricDiff] = Field(description="each measure on both sides")
    changes: list[CaseChange] = Field(description="what to show: verdict, trajectory, worse")


class DiffTotals(BaseModel):
    """Cases per category; each case is counted once."""

    model_config = ConfigDict(frozen=True)

    regressed: int
    worse: int
    improved: int
    changed: int
    unchanged: int
    new: int
    gone: int


class RunDiff(BaseModel):
    model_config = ConfigDict(frozen=True)

    base_run_id: str
    new_run_id: str
    base_scoring_id: str
    new_scoring_id: str
    tolerances: DiffTolerances
    cases: list[CaseDiff] = Field(description="every case of either run, by id")
    totals: DiffTotals
    failed: bool = Field(description="a case regressed or got worse beyond a tolerance: exit 1")
    summary: str = Field(description="the verdict in one sentence")

    @property
    def regressed(self) -> bool:
        """The diff fails (what `run --baseline` gates on): the same as `failed`."""
        return self.failed

    def of(self, category: Category) -> list[CaseDiff]:
        return [c for c in self.cases if c.category == category]

    @property
    def only_in_base(self) -> list[str]:
        return [f"{c.eval_set_id}/{c.case_id}" for c in self.of("gone")]

    @property
    def only_in_new(self) -> list[str]:
        return [f"{c.eval_set_id}/{c.case_id}" for c in self.of("new")]


def diff_runs(
    reader: Reader,
    base_run_id: str,
    new_run_id: str,
    tolerances: DiffTolerances | None = None,
) -> RunDiff:
    """Compares the latest scoring of each run."""
    base = build_report(reader, run_id=base_run_id)
    return diff_reports(base, build_report(reader, run_id=new_run_id), tolerances)


def diff_reports(
    base: RunReport, new: RunReport, tolerances: DiffTolerances | None = None
) -> RunDiff:
    tolerances = tolerances or DiffTolerances()
    base_cases = {(c.eval_set_id, c.case_id): c for c in base.cases}
    new_cases = {(c.eval_set_id, c.case_id): c for c in new.cases}
    scored = sorted({u.metric for u in base.judges} & {u.metric for u in new.judges})
    cases = [
        _case_diff(key, base_cases.get(key), new_cases.get(key), tolerances, scored)
        for key in sorted(base_cases.keys() | new_cases.keys())
    ]
    totals = DiffTotals(**{c: sum(1 for d in cases if d.category == c) for c in CATEGORIES})
    return RunDiff(
        base_run_id=base.run.run_id,
        new_run_id=new.run.run_id,
        base_scoring_id=base.scoring.scoring_id,
        new_scoring_id=new.scoring.scoring_id,
        tolerances=tolerances,
        cases=cases,
        totals=totals,
        failed=totals.regressed + totals.worse > 0,
        summary=_summary(totals),
    )


def _summary(totals: DiffTotals) -> str:
    failing = [
        f"{plural(n, 'case')} {what}"
        for n, what in (
            (totals.regressed, "passed before and not now"),
            (totals.worse, "got worse beyond a tolerance"),
        )
        if n
    ]
    return f"REGRESSION: {', '.join(failing)}" if failing else "No regression"


def _case_diff(
    key: tuple[str, str],
    base: CaseReport | None,
    new: CaseReport | None,
    tolerances: DiffTolerances,
    scored: list[str],
) -> CaseDiff:
    eval_set_id, case_id = key
    if base is None or new is None:
        gone = new is None
        return CaseDiff(
            eval_set_id=eval_set_id,
            case_id=case_id,
            base_verdict=base.verdict if base else None,
            new_verdict=new.verdict if new else None,
            category="gone" if gone else "new",
            reason=f"not in the {'new' if gone else 'base'} run",
            metrics=[],
            changes=[],
        )
    before, after = Profile.of(base), Profile.of(new)
    metrics = [
        *measures(before, after, tolerances),
        *judged(base, new, scored, tolerances.score_drop),
    ]
    changes = [
        *verdict_change(base.verdict, new.verdict),
        *trajectory_change(before, after),
        *(CaseChange(kind=m.kind, message=m.message) for m in metrics if m.worse),
    ]
    category, reason = _classify(base.verdict, new.verdict, changes, metrics)
    return CaseDiff(
        eval_set_id=eval_set_id,
        case_id=case_id,
        base_verdict=base.verdict,
        new_verdict=new.verdict,
        category=category,
        reason=reason,
        metrics=metrics,
        changes=changes,
    )


def _classify(
    before: str, after: str, changes: list[CaseChange], metrics: list[MetricDiff]
) -> tuple[Category, str]:
    kinds = {c.kind for c in changes}
    if "regressed" in kinds:
        return "regressed", f"passed before, {after} now"
    worse = [m.label for m in metrics if m.worse]
    if worse:
        still = f"still {_STATE.get(after, after)}" if before == after else f"{before} → {after}"
        return "worse", f"{', '.join(worse)} worse beyond tolerance, {still}"
    if "fixed" in kinds:
        return "improved", f"{before} before, passes now"
    if changes:
        return "changed", f"{'; '.join(c.message for c in changes)}; nothing worse"
    return "unchanged", "nothing changed beyond a tolerance"


_STATE = {"passed": "passing", "failed": "failing", "error": "an error"}


def diff_to_json(diff: RunDiff) -> str:
    """A run diff as JSON (`tracegrade diff --json`), the same model the terminal, Markdown
    and pages render: each case's category, reason and measures, and the totals."""
    return diff.model_dump_json(indent=2) + "\n"
