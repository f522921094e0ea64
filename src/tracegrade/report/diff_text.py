"""`render_diff`: a run diff for people, regressions first, ending with the exit code."""

from __future__ import annotations

from collections.abc import Iterator

from rich.text import Text

from tracegrade.exit_codes import ExitCode
from tracegrade.report.diff import OVER_TOLERANCE, CaseDiff, RunDiff
from tracegrade.report.values import UNBOUNDED, exit_meaning, plural, to_text
from tracegrade.terminal_safe import scrubbed

# Most serious first: a case is listed under the first of these it shows.
_GROUPS = (
    ("regressed", "REGRESSED", "bold red"),
    *((kind, "OVER TOLERANCE", "bold red") for kind in sorted(OVER_TOLERANCE)),
    ("fixed", "FIXED", "green"),
    ("", "CHANGED", "yellow"),
)


def render_diff(diff: RunDiff, width: int | None = 100, color: bool = False) -> str:
    return to_text(_lines(scrubbed(diff)), width=width or UNBOUNDED, color=color)


def _lines(diff: RunDiff) -> Iterator[Text]:
    yield Text(f"Diff {diff.base_run_id} → {diff.new_run_id}", style="bold")
    yield Text(f"scorings {diff.base_scoring_id} → {diff.new_scoring_id}")
    yield Text()
    changed = [c for c in diff.cases if c.changes]
    for case in sorted(changed, key=_rank):
        label, style = _label(case)
        yield Text(f"{label} {case.eval_set_id}/{case.case_id}", style=style)
        for change in case.changes:
            yield Text(f"  {change.message}")
    unchanged = len(diff.cases) - len(changed)
    if unchanged:
        yield Text(f"{plural(unchanged, 'case')} unchanged")
    for side, ids in (("base", diff.only_in_base), ("new", diff.only_in_new)):
        if ids:
            yield Text(f"only in the {side} run: {', '.join(ids)}")
    yield Text()
    yield _verdict(diff)


def _label(case: CaseDiff) -> tuple[str, str]:
    kinds = {c.kind for c in case.changes}
    return next((label, style) for kind, label, style in _GROUPS if kind in kinds or not kind)


def _rank(case: CaseDiff) -> tuple[int, str, str]:
    label = _label(case)[0]
    order = [g[1] for g in _GROUPS].index(label)
    return order, case.eval_set_id, case.case_id


def _verdict(diff: RunDiff) -> Text:
    if not diff.regressed:
        return Text(f"No regression → exit code {exit_meaning(ExitCode.OK)}", style="bold green")
    worse = [
        f"{plural(n, 'case')} {what}"
        for n, what in (
            (sum(1 for c in diff.cases if c.regressed), "passed before and not now"),
            (sum(1 for c in diff.cases if c.over_tolerance), "got worse beyond a tolerance"),
        )
        if n
    ]
    return Text(
        f"REGRESSION: {', '.join(worse)} → exit code {exit_meaning(ExitCode.GATE_FAILED)}",
        style="bold red",
    )
