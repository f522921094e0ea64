"""Scoring an archive on Spark: read, pick, shuffle by trace id, score in tasks, levels here.

    rows = score_archive(spark, "/data/spans", SparkScoring(sample=0.05))   # a notebook
    python -m tracegrade.spark score --archive /data/spans --sample 0.05 --out scores/

The traffic filters act on spans before the shuffle: a sample is decided by trace id, so
keeping the sampled traces keeps exactly the turns `tracegrade score --sample` picks. For
`since`, the archive's day partition is its trace's first day, and a trace may hold turns
days apart (an application's session wrapped in one trace): no margin of days is safe. So
the traces read are those with a span started in the window (as `tracegrade score` selects
them), from the partitions they are in, and the tasks pick the turns by their own start
with the local predicate itself (`Selection`, cut at the driver's `now_ns`).
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from tracegrade.errors import ConfigError
from tracegrade.scoring.selection import Selection
from tracegrade.spark.tasks import TASK_ROWS_DDL, partition_scorer

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from tracegrade.workspace.requests import ScoreRequest

_TRACE_ID_SPACE = 2**64
_EVAL_SPANS = (
    "scope_name = 'tracegrade' AND name IN ('tracegrade.eval_run', 'tracegrade.eval_case')"
)


@dataclass(frozen=True)
class SparkScoring:
    """What to score: an eval run (`run_id`) or traffic (`since`, `sample`), with what."""

    run_id: str | None = None
    since: dt.timedelta | None = None
    sample: float | None = None
    config: dict[str, Any] | None = None
    partitions: int = 16
    now_ns: int = field(default_factory=time.time_ns)

    @classmethod
    def from_request(cls, request: ScoreRequest, partitions: int = 16) -> SparkScoring:
        """The scoring `tracegrade score` would be asked for, on Spark: the same request
        (its criteria parsed once), without what Spark's tasks cannot do (a SQL `where`)."""
        if request.where is not None:
            raise ConfigError("--where is not scored on Spark: select with --since, --sample")
        if request.evalset is not None:
            raise ConfigError(
                "--evalset is not scored on Spark: score it with `tracegrade score --evalset`"
            )
        since = request.since_s
        return cls(
            run_id=request.run_id,
            since=dt.timedelta(seconds=since) if since is not None else None,
            sample=request.sample,
            config=request.criteria.raw if request.criteria is not None else None,
            partitions=partitions,
        )

    def selection(self) -> Selection:
        """The selection `tracegrade score` makes, its `since` cut at this job's `now_ns`
        in every task (and at the driver)."""
        return Selection(
            run_id=self.run_id, since=self.since, sample=self.sample, now_ns=self.now_ns
        )


@dataclass(frozen=True)
class SparkJob:
    """The per-turn rows (see tasks.TASK_ROWS) as a DataFrame, the criteria and selection
    they are scored with, and an eval run's own spans: the driver's levels and gate need the
    same criteria and selection, and the run's plan (which turns each case set out to
    replay) from those spans."""

    rows: DataFrame
    config: dict[str, Any]
    selection: Selection
    eval_spans: pa.Table | None


def score_archive(spark: SparkSession, archive: str, scoring: SparkScoring) -> SparkJob:
    """Plan the scoring of the archive's selected turns (nothing runs until rows are read)."""
    if scoring.run_id is not None and (scoring.since is not None or scoring.sample is not None):
        raise ConfigError("give --run or traffic options (--since, --sample), not both")
    spans = read_archive(spark, archive)
    eval_spans, shared = None, None
    if scoring.run_id is not None:
        # An eval run's own spans are one trace beside its turns' traces, and every task
        # reads them (expected turns, tool definitions): sent to all, as a broadcast.
        eval_spans = spans.where(_EVAL_SPANS).toArrow()
        shared = spark.sparkContext.broadcast(eval_spans)
    config = _config(scoring, eval_spans)
    _refuse_judged(config)
    selection = scoring.selection()
    scorer = partition_scorer(config, selection, shared)
    picked = _picked(spans, scoring).repartition(scoring.partitions, "trace_id")
    return SparkJob(picked.mapInArrow(scorer, TASK_ROWS_DDL), config, selection, eval_spans)


def read_archive(spark: SparkSession, archive: str) -> DataFrame:
    """The archive's spans, every file's columns. Its schema grows by added columns only
    (store/archive_schema.py): without mergeSchema Spark takes one file's columns and drops
    a column that only newer files have."""
    return spark.read.option("mergeSchema", "true").parquet(archive)


def _picked(spans: DataFrame, scoring: SparkScoring) -> DataFrame:
    if scoring.sample is not None:
        # Selection.sample's rule in Spark SQL: the trace id's low 64 bits under
        # rate * 2^64; conv() gives them as unsigned decimal text, DECIMAL(20,0) holds 2^64.
        bound = round(scoring.sample * _TRACE_ID_SPACE)
        spans = spans.where(
            f"CAST(conv(substr(trace_id, 17, 16), 16, 10) AS DECIMAL(20,0)) < {bound}BD"
        )
    if scoring.since is not None:
        spans = _in_window(spans, scoring.selection().cutoff_ns())
    return spans


def _in_window(spans: DataFrame, cutoff_ns: int) -> DataFrame:
    """The spans of the traces with a span started since `cutoff_ns`: those found first
    (Parquet's row-group statistics on start_ns skip most old files), then the days they
    are filed under, so that only those partitions are read whole."""
    recent = spans.where(f"start_ns >= {cutoff_ns}").select("day", "trace_id").distinct()
    days = sorted({row["day"] for row in recent.select("day").distinct().collect()})
    return spans.where(spans["day"].isin(days)).join(
        recent.select("trace_id"), "trace_id", "left_semi"
    )


def _config(scoring: SparkScoring, eval_spans: pa.Table | None) -> dict[str, Any]:
    """The criteria given, else (an eval run) those the run was made with, else none."""
    if scoring.config is not None:
        return scoring.config
    if scoring.run_id is None or eval_spans is None:
        return {"criteria": {}}
    from tracegrade.spark.levels import run_criteria_of

    return run_criteria_of(eval_spans, scoring.run_id) or {"criteria": {}}


def _refuse_judged(config: dict[str, Any]) -> None:
    """Judges are called from one process, within one budget, caching their answers in the
    store (scoring/judging); Spark's tasks have neither, so those metrics are refused."""
    from tracegrade.scoring.criteria import parse_config
    from tracegrade.scoring.metrics import available_metrics

    specs = available_metrics()
    criteria = parse_config(config, specs).criteria
    judged = sorted(name for name in criteria if name in specs and specs[name].judge)
    if judged:
        raise ConfigError(
            f"judged metrics are not scored on Spark: {', '.join(judged)}; score them with "
            "`tracegrade score`, or give --config criteria without them"
        )


def collect_rows(rows: DataFrame) -> pa.Table:
    table: pa.Table = rows.toArrow()
    return table
