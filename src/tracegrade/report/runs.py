"""`list_runs` / `render_runs`: stored eval runs and how each last scored (`tracegrade runs`)."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict
from rich import box
from rich.console import JustifyMethod
from rich.table import Table

from tracegrade.report.formatting import DASH, to_text
from tracegrade.report.queries import iso_utc
from tracegrade.report.values import as_dict, as_int, as_list, as_str
from tracegrade.store.reader import Reader, records


class RunSummary(BaseModel):
    model_config = ConfigDict(frozen=True)

    run_id: str
    started_at: str | None
    agent: str | None
    eval_sets: list[str]
    cases: int
    repeats: int | None
    scoring_id: str | None
    """The latest scoring; None when the run was never scored."""
    verdict: str | None
    passed_cases: int | None
    failed_cases: int | None
    errored_cases: int | None


_RUNS = """
WITH latest AS (
    SELECT run_id, scoring_id, verdict
    FROM scorings
    WHERE run_id IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY run_id ORDER BY scored_at DESC, scoring_id DESC) = 1
),
outcomes AS (
    SELECT scoring_id,
           count(*) FILTER (verdict = 'passed') AS passed,
           count(*) FILTER (verdict = 'failed') AS failed,
           count(*) FILTER (verdict = 'error') AS errored
    FROM case_results
    GROUP BY scoring_id
)
SELECT r.run_id, epoch_us(r.started_at) AS started_us, r.agent, r.eval_sets, r.cases,
       r.repeats, l.scoring_id, l.verdict, o.passed, o.failed, o.errored
FROM eval_runs r
LEFT JOIN latest l USING (run_id)
LEFT JOIN outcomes o USING (scoring_id)
ORDER BY r.started_at DESC, r.run_id DESC
"""


def list_runs(reader: Reader) -> list[RunSummary]:
    """Newest first."""
    return [_summary(row) for row in records(reader, _RUNS)]


def _summary(row: dict[str, object]) -> RunSummary:
    return RunSummary(
        run_id=str(row["run_id"]),
        started_at=iso_utc(row["started_us"]),
        agent=as_str(row["agent"]),
        eval_sets=[str(as_dict(s).get("eval_set_id")) for s in as_list(row["eval_sets"])],
        cases=as_int(row["cases"]) or 0,
        repeats=as_int(row["repeats"]),
        scoring_id=as_str(row["scoring_id"]),
        verdict=as_str(row["verdict"]),
        passed_cases=as_int(row["passed"]),
        failed_cases=as_int(row["failed"]),
        errored_cases=as_int(row["errored"]),
    )


_COLUMNS = ("run", "started (UTC)", "agent", "eval sets", "cases", "reps", "verdict", "pass", "err")


def render_runs(runs: Sequence[RunSummary], width: int = 100, color: bool = False) -> str:
    if not runs:
        return to_text(["No eval runs stored: `tracegrade run` records one."], width, color)
    table = Table(box=box.SIMPLE_HEAD, padding=0, show_edge=False)
    for title in _COLUMNS:
        justify: JustifyMethod = "right" if title in _NUMBERS else "left"
        # Ids and times stay on one line to be copied; the agent reference folds.
        table.add_column(title, overflow="fold", justify=justify, no_wrap=title in _WHOLE)
    for run in runs:
        table.add_row(
            run.run_id,
            _minute(run.started_at),
            run.agent or DASH,
            ", ".join(run.eval_sets) or DASH,
            str(run.cases),
            DASH if run.repeats is None else str(run.repeats),
            run.verdict or "not scored",
            _of(run.passed_cases, run.cases),
            DASH if run.errored_cases is None else str(run.errored_cases),
        )
    return to_text([table], width, color)


_NUMBERS = frozenset({"cases", "reps", "pass", "err"})
_WHOLE = frozenset({"run", "started (UTC)"})


def _minute(iso: str | None) -> str:
    """2026-01-01T00:05:00Z as 2026-01-01 00:05."""
    return DASH if iso is None else iso[:16].replace("T", " ")


def _of(part: int | None, whole: int) -> str:
    return DASH if part is None else f"{part}/{whole}"
