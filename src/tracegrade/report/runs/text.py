"""`render_runs`: the stored eval runs as a table for people (`tracegrade runs`);
`render_traffic_scorings`: the scorings of traffic (`tracegrade runs --traffic`)."""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.console import JustifyMethod
from rich.table import Table

from tracegrade.report.runs.build import RunSummary, TrafficScoringSummary
from tracegrade.report.values import DASH, to_text
from tracegrade.terminal_safe import scrubbed

_COLUMNS = ("run", "started (UTC)", "agent", "eval sets", "cases", "reps", "verdict", "pass", "err")


def render_runs(runs: Sequence[RunSummary], width: int = 100, color: bool = False) -> str:
    runs = scrubbed(list(runs))
    if not runs:
        return to_text(["No eval runs stored: `tracegrade run` records one."], width, color)
    table = Table(box=box.SIMPLE_HEAD, padding=0, show_edge=False)
    # With a token set, each run says whether it is signed under it: an unsigned one may be
    # forged by anyone who can send spans, and is never taken as the latest.
    checked = any(run.signed is not None for run in runs)
    tagged = any(run.tags for run in runs)  # a column only once some run is named
    columns = (*_COLUMNS[:1], "tags", *_COLUMNS[1:]) if tagged else _COLUMNS
    for title in (*columns, "signed") if checked else columns:
        justify: JustifyMethod = "right" if title in _NUMBERS else "left"
        # Ids and times stay on one line to be copied; the agent reference folds.
        table.add_column(title, overflow="fold", justify=justify, no_wrap=title in _WHOLE)
    for run in runs:
        signed = ("yes" if run.signed else "NO",) if checked else ()
        tags = (", ".join(run.tags) or DASH,) if tagged else ()
        table.add_row(
            run.run_id,
            *tags,
            _minute(run.started_at),
            run.agent or DASH,
            ", ".join(run.eval_sets) or DASH,
            str(run.cases),
            DASH if run.repeats is None else str(run.repeats),
            run.verdict or "not scored",
            _of(run.passed_cases, run.cases),
            DASH if run.errored_cases is None else str(run.errored_cases),
            *signed,
        )
    return to_text([table], width, color)


_NUMBERS = frozenset({"cases", "reps", "pass", "err"})
_WHOLE = frozenset({"run", "started (UTC)", "signed"})


def _minute(iso: str | None) -> str:
    """2026-01-01T00:05:00Z as 2026-01-01 00:05."""
    return DASH if iso is None else iso[:16].replace("T", " ")


def _of(part: int | None, whole: int) -> str:
    return DASH if part is None else f"{part}/{whole}"


_TRAFFIC_COLUMNS = ("scoring", "scored (UTC)", "rule", "selection", "turns", "verdict")


def render_traffic_scorings(
    scorings: Sequence[TrafficScoringSummary], width: int = 100, color: bool = False
) -> str:
    scorings = scrubbed(list(scorings))
    if not scorings:
        return to_text(
            ["No traffic scorings stored: `tracegrade score --since 24h` makes one."], width, color
        )
    table = Table(box=box.SIMPLE_HEAD, padding=0, show_edge=False)
    for title in _TRAFFIC_COLUMNS:
        justify: JustifyMethod = "right" if title == "turns" else "left"
        table.add_column(title, overflow="fold", justify=justify, no_wrap=title in _WHOLE_TRAFFIC)
    for scoring in scorings:
        table.add_row(
            scoring.scoring_id,
            _minute(scoring.scored_at),
            scoring.rule or DASH,
            scoring.selection,
            str(scoring.turns),
            scoring.verdict,
        )
    return to_text([table], width, color)


_WHOLE_TRAFFIC = frozenset({"scoring", "scored (UTC)"})
