"""A run diff's listed categories for the page and the Markdown summary, in the order and
with the titles `tracegrade diff` uses; unchanged cases and cases in one run only are
counted or named below them."""

from __future__ import annotations

from dataclasses import dataclass

from tracegrade.report.diff.build import CATEGORIES, CaseDiff, Category, RunDiff

_LISTED: tuple[Category, ...] = ("regressed", "worse", "improved", "changed")


@dataclass(frozen=True)
class DiffGroup:
    kind: Category
    title: str
    cases: list[CaseDiff]


def diff_groups(diff: RunDiff) -> list[DiffGroup]:
    """The listed categories that have a case, most serious first."""
    groups = [DiffGroup(kind, CATEGORIES[kind], diff.of(kind)) for kind in _LISTED]
    return [group for group in groups if group.cases]
