"""`render_diff`: a run diff for people, most serious category first, ending with the exit
code. It only renders the `RunDiff`: categories, reasons and counts are the model's."""

from __future__ import annotations

from collections.abc import Iterator

from rich.text import Text

from tracegrade.exit_codes import ExitCode
from tracegrade.report.diff.build import CATEGORIES, Category, RunDiff
from tracegrade.report.values import UNBOUNDED, exit_meaning, plural, to_text
from tracegrade.terminal_safe import scrubbed

# The categories listed case by case; the rest are counted or named on one line.
_LISTED: dict[Category, str] = {
    "regressed": "bold red",
    "worse": "bold red",
    "improved": "green",
    "changed": "yellow",
}


def render_diff(
    diff: RunDiff, width: int | None = 100, color: bool = False, exit_code: ExitCode | None = None
) -> str:
    """The diff, ending with `exit_code` (the command's, when the diff follows a run's
    report) or else the diff's own."""
    return to_text(_lines(scrubbed(diff), exit_code), width=width or UNBOUNDED, color=color)


def _lines(diff: RunDiff, exit_code: ExitCode | None) -> Iterator[Text]:
    yield Text(f"Diff {diff.base_run_id} → {diff.new_run_id}", style="bold")
    yield Text(f"scorings {diff.base_scoring_id} → {diff.new_scoring_id}")
    yield Text()
    for category, style in _LISTED.items():
        for case in diff.of(category):
            yield Text(f"{category.upper()} {case.eval_set_id}/{case.case_id}", style=style)
            yield Text(f"  {case.reason}")
            for change in case.changes:
                yield Text(f"    {change.message}")
    if diff.totals.unchanged:
        yield Text(f"{plural(diff.totals.unchanged, 'case')} unchanged")
    for title, ids in (
        (CATEGORIES["gone"], diff.only_in_base),
        (CATEGORIES["new"], diff.only_in_new),
    ):
        if ids:
            yield Text(f"{title.lower()}: {', '.join(ids)}")
    yield Text()
    yield _verdict(diff, exit_code)


def _verdict(diff: RunDiff, exit_code: ExitCode | None) -> Text:
    # Below a run's report the command's exit code is the run's gate and the diff together:
    # the diff's own would contradict the line above it ("FAILED → exit 1", "→ exit 0").
    code = exit_code if exit_code is not None else _own_code(diff)
    return Text(
        f"{diff.summary} → exit code {exit_meaning(code)}",
        style="bold red" if code != ExitCode.OK else "bold green",
    )


def _own_code(diff: RunDiff) -> ExitCode:
    return ExitCode.GATE_FAILED if diff.failed else ExitCode.OK
