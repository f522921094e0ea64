"""A run diff's cases in groups for the page: regressed, fixed, then otherwise changed (as
`tracegrade diff` lists them); a case is in the first group it qualifies for."""

from __future__ import annotations

from dataclasses import dataclass

from tracegrade.report.diff import CaseDiff, RunDiff

_GROUPS = (("regressed", "Regressed"), ("fixed", "Fixed"), ("changed", "Changed"))


@dataclass(frozen=True)
class DiffGroup:
    kind: str
    title: str
    cases: list[CaseDiff]


def diff_groups(diff: RunDiff) -> list[DiffGroup]:
    """The groups that have a case, most serious first."""
    grouped: dict[str, list[CaseDiff]] = {kind: [] for kind, _ in _GROUPS}
    for case in diff.cases:
        kinds = {c.kind for c in case.changes}
        if kinds:
            grouped[next((k for k in ("regressed", "fixed") if k in kinds), "changed")].append(case)
    return [DiffGroup(kind, title, grouped[kind]) for kind, title in _GROUPS if grouped[kind]]
