"""`render_traffic_diff`: a diff of two traffic scorings for people: the measures worse
beyond a tolerance first, then the rest, ending with the exit code."""

from __future__ import annotations

from collections.abc import Iterator

from rich.text import Text

from tracegrade.exit_codes import ExitCode
from tracegrade.report.traffic_diff.build import TrafficDiff
from tracegrade.report.values import UNBOUNDED, exit_meaning, plural, to_text
from tracegrade.terminal_safe import scrubbed


def render_traffic_diff(diff: TrafficDiff, width: int | None = 100, color: bool = False) -> str:
    return to_text(_lines(scrubbed(diff)), width=width or UNBOUNDED, color=color)


def _lines(diff: TrafficDiff) -> Iterator[Text]:
    yield Text(f"Traffic diff {diff.base_scoring_id} → {diff.new_scoring_id}", style="bold")
    yield Text(f"base: {diff.base_selection} · {plural(diff.base_turns, 'turn')}")
    yield Text(f"new:  {diff.new_selection} · {plural(diff.new_turns, 'turn')}")
    yield Text()
    for change in diff.worse:
        yield Text(f"WORSE {change.scope}: {change.message} (tolerance {change.tolerance})",
                   style="bold red")  # fmt: skip
    moved = [c for c in diff.changes if not c.worse and c.before != c.after]
    for change in moved:
        yield Text(f"  {change.scope}: {change.message}")
    if unchanged := len(diff.changes) - len(diff.worse) - len(moved):
        yield Text(f"{plural(unchanged, 'measure')} unchanged")
    yield Text()
    code = ExitCode.GATE_FAILED if diff.failed else ExitCode.OK
    yield Text(
        f"{diff.summary} → exit code {exit_meaning(code)}",
        style="bold red" if diff.failed else "bold green",
    )
