"""The summary's table of cases, laid out for the width it has.

Every column is as wide as its widest line, and no cell or header is ever split mid-word
or cut: metric names break at their underscores. When the columns do not fit, the
per-case cost, latency and tokens go first (the totals under the table keep them, and a
line says what is left out), then long case ids fold; only a terminal too narrow for the
gating metrics themselves (under ~60 columns with three) cuts the rightmost columns.
Piped output has no width to fit: every column is shown, whole.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import groupby

from rich import box
from rich.console import JustifyMethod, RenderableType
from rich.table import Table
from rich.text import Text

from tracegrade.report.models import CaseReport, Criterion, RunReport, Totals
from tracegrade.report.summary import totals
from tracegrade.report.values import DASH, comparator, count, header, ms, num, plural, usd

STYLE = {"passed": "green", "failed": "red", "error": "yellow", "errors": "yellow"}
_SHORTEST_CASE = 8
"""Case ids fold at this width, if nothing else will fit."""


@dataclass
class _Column:
    title: str
    footer: str
    cells: list[str | Text] = field(default_factory=list)
    justify: JustifyMethod = "right"
    drop: int = 0
    """Order in which columns go when they do not fit (highest first); 0: never."""

    @property
    def width(self) -> int:
        texts = [
            self.title,
            self.footer,
            *(c.plain if isinstance(c, Text) else c for c in self.cells),
        ]
        return max(len(line) for text in texts for line in text.splitlines() or [""])


def case_table(report: RunReport, width: int) -> Iterator[RenderableType]:
    columns = _columns(report)
    shown, dropped = _fit(columns, width)
    table = Table(box=box.SIMPLE_HEAD, padding=0, show_edge=False, show_footer=True)
    room = width - _total(shown) + shown[0].width
    for index, column in enumerate(shown):
        fixed = column.width if index else min(column.width, max(room, _SHORTEST_CASE))
        table.add_column(
            column.title, footer=column.footer, justify=column.justify, min_width=fixed,
            max_width=fixed, no_wrap=index > 0, overflow="fold",
        )  # fmt: skip
    for row in zip(*(c.cells for c in shown), strict=True):
        table.add_row(*row)
    yield table
    partly = 0 < report.totals.priced_turns < report.totals.turns
    if partly and "cost" not in dropped:
        yield Text("* cost of the priced turns only (see Totals)")
    if dropped:
        names = ", ".join(dropped[:-1]) + " and " * (len(dropped) > 1) + dropped[-1]
        yield Text(f"Per-case {names} left out to fit {width} columns (see Totals)")


def _total(columns: Sequence[_Column]) -> int:
    """Columns are one blank apart."""
    return sum(c.width for c in columns) + len(columns) - 1


def _fit(columns: list[_Column], width: int) -> tuple[list[_Column], list[str]]:
    """The columns that fit, and the titles of those left out (in table order)."""
    shown = list(columns)
    for column in sorted((c for c in columns if c.drop), key=lambda c: -c.drop):
        if _total(shown) <= width:
            break
        shown.remove(column)
    dropped = [c.title.splitlines()[0] for c in columns if c not in shown]
    return shown, dropped


def _columns(report: RunReport) -> list[_Column]:
    metrics = [c for c in report.scoring.criteria if c.threshold is not None or c.max is not None]
    columns = [
        _Column("case", plural(len(report.cases), "case"), justify="left"),
        _Column("result", _label(report.verdict), justify="left"),
        _Column("passed", _passed_footer(report.cases)),
        *(_Column(_metric_title(c), "") for c in metrics),
        _Column("err", str(report.errored_repeats)),
        _Column("latency\n(ms)\np50/p95", "", drop=2),
        _Column("tokens", "", drop=1),
        _Column("cost", "", drop=3),
    ]
    for column, footer in zip(columns[-3:], _stat_cells(report.totals), strict=True):
        column.footer = footer
    for eval_set, cases in groupby(report.cases, key=lambda c: c.eval_set_id):
        _add_row(columns, [Text(f"{eval_set}:", style="bold")])
        for case in cases:
            _add_row(columns, _case_cells(case, metrics))
    return columns


def _add_row(columns: list[_Column], cells: Sequence[str | Text]) -> None:
    for index, column in enumerate(columns):
        column.cells.append(cells[index] if index < len(cells) else "")


def _metric_title(criterion: Criterion) -> str:
    bound = criterion.threshold if criterion.threshold is not None else criterion.max
    return f"{header(criterion.metric, 10)}\n{comparator(criterion.better)} {num(bound)}"


def _label(verdict: str) -> str:
    """A verdict on as many lines as it has words: `not evaluated` in a narrow column."""
    return verdict.replace("_", "\n")


def _stat_cells(t: Totals) -> tuple[str, str, str]:
    latency = DASH if t.latency_p50_ms is None else f"{ms(t.latency_p50_ms)}/{ms(t.latency_p95_ms)}"
    partly = 0 < t.priced_turns < t.turns
    return latency, count(t.total_tokens), usd(t.cost_usd) + ("*" if partly else "")


def _passed_footer(cases: Sequence[CaseReport]) -> str:
    return f"{sum(1 for c in cases if c.verdict == 'passed')}/{len(cases)}"


def _case_cells(case: CaseReport, metrics: Sequence[Criterion]) -> list[str | Text]:
    verdict = _label(case.verdict) + ("\n(flaky)" if case.flaky else "")
    cells: list[str | Text] = [
        case.case_id,
        Text(verdict, style=STYLE.get(case.verdict, "")),
        f"{case.passed_repeats}/{case.repeats}",
    ]
    cells += [_metric_cell(case, c.metric) for c in metrics]
    cells.append(str(case.errored_repeats) if case.errored_repeats else "")
    stats = totals([t for r in case.repeat_results for t in r.turns])
    cells += list(_stat_cells(stats))
    return cells


def _metric_cell(case: CaseReport, metric: str) -> Text:
    scores = [s for r in case.repeat_results for s in r.scores if s.metric == metric]
    values = [s.score for s in scores if s.score is not None]
    if not values:
        if scores and all(s.status == "not_applicable" for s in scores):
            return Text("n/a", style="dim")  # needs expected turns: a scenario case
        return Text(DASH)
    statuses = {s.status for s in scores}
    mark, style = ("✗", "red") if "failed" in statuses else ("✓", "green")
    return Text(f"{num(sum(values) / len(values))} {mark}", style=style)
