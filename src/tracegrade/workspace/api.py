"""The public Python API: run an eval set and score it, score stored turns, read a report.

    import tracegrade

    result = tracegrade.eval(
        tracegrade.EvalRequest(eval_sets=("examples/home_automation",),
                               agent="examples/home_automation"),
        store="evals.duckdb",
    )
    result.verdict, result.exit_code               # as `tracegrade run` decides them
    report = tracegrade.read_report(store="evals.duckdb", scoring_id=result.scoring_id)

The CLI, the pytest plugin, `tracegrade serve` and Spark call the same requests.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from tracegrade.workspace.store import Store

if TYPE_CHECKING:
    from tracegrade.harness.run import Progress
    from tracegrade.report import RunReport
    from tracegrade.workspace.requests import EvalRequest, ScoreRequest
    from tracegrade.workspace.results import EvalResult, ScoreResult

StoreLike = Store | str | os.PathLike[str] | None
"""A `Store`, a DuckDB file's path, or None for the default file ($TRACEGRADE_DB, else
./tracegrade.duckdb)."""


def eval(  # inspect_ai's name for the same call
    request: EvalRequest, store: StoreLike = None, progress: Progress | None = None
) -> EvalResult:
    """Replay the request's eval sets through its agent, capture the spans into `store`
    (or, with `otlp_endpoint`, send them to the serve that holds it) and score the run.
    Everything the run needs is checked before the first case; a `TracegradeError` says
    what is wrong. `progress` is called once per finished case repeat."""
    from tracegrade.workspace.evaluation import evaluate

    return evaluate(request, as_store(store), progress)


def score(request: ScoreRequest | None = None, store: StoreLike = None) -> ScoreResult:
    """Score stored turns as `request` selects them (default: the latest eval run, with
    the criteria it was made with), in this process or in the serve holding the file."""
    from tracegrade.workspace.requests import ScoreRequest

    request = request or ScoreRequest()
    with as_store(store).scoring(_metric_dirs(request)) as target:
        return target.score(request)


def read_report(
    store: StoreLike = None, scoring_id: str | None = None, run_id: str | None = None
) -> RunReport:
    """An eval run's report (as `tracegrade report --json` has it): the given scoring,
    else the latest of `run_id`, else that of the latest scored run."""
    from tracegrade.report import build_report

    with as_store(store).reader() as reader:
        return build_report(reader, scoring_id=scoring_id, run_id=run_id)


def as_store(store: StoreLike) -> Store:
    return store if isinstance(store, Store) else Store(store)


def _metric_dirs(request: ScoreRequest) -> tuple[Path, ...]:
    dirs = request.criteria.metric_dirs if request.criteria is not None else ()
    return (*request.metric_dirs, *dirs)
