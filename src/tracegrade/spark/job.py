"""Scoring an archive on Spark: read, pick, shuffle by trace id, score in tasks, levels here.

    rows = score_archive(spark, "/data/spans", SparkScoring(sample=0.05))   # a notebook
    python -m tracegrade.spark score --archive /data/spans --sample 0.05 --out scores/

The traffic filters act on spans before the shuffle: a turn is a trace, so keeping the
sampled traces keeps exactly the turns `tracegrade score --sample` picks; `since` prunes
day partitions (one day of margin: a trace starts before its turns) and then picks turns by
their start as the local scoring does.
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

    def selection(self) -> Selection:
        """The tasks' selection; `since` as a fixed cut, the same in every task."""
        where = None
        if self.since is not None:
            where = f"start_ns >= {self.cutoff_ns()}"
        return Selection(run_id=self.run_id, sample=self.sample, where=where)

    def cutoff_ns(self) -> int:
        assert self.since is not None
        return self.now_ns - int(self.since.total_seconds() * 1e9)


@dataclass(frozen=True)
class SparkJob:
    """The per-turn rows (see tasks.TASK_ROWS) as a DataFrame, the criteria they are scored
    with, and an eval run's own spans: the driver's levels need the same criteria, and the
    run's plan (which turns each case set out to replay) from those spans."""

    rows: DataFrame
    config: dict[str, Any]
    eval_spans: pa.Table | None


def score_archive(spark: SparkSession, archive: str, scoring: SparkScoring) -> SparkJob:
    """Plan the scoring of the archive's selected turns (nothing runs until rows are read)."""
    spans = read_archive(spark, archive)
    eval_spans, shared = None, None
    if scoring.run_id is not None:
        # An eval run's own spans are one trace beside its turns' traces, and every task
        # reads them (expected turns, tool definitions): sent to all, as a broadcast.
        eval_spans = spans.where(_EVAL_SPANS).toArrow()
        shared = spark.sparkContext.broadcast(eval_spans)
    config = _config(scoring, eval_spans)
    _refuse_judged(config)
    scorer = partition_scorer(config, scoring.selection(), shared)
    picked = _picked(spans, scoring).repartition(scoring.partitions, "trace_id")
    return SparkJob(picked.mapInArrow(scorer, TASK_ROWS_DDL), config, eval_spans)


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
        first_day = dt.datetime.fromtimestamp(scoring.cutoff_ns() / 1e9, dt.UTC).date()
        spans = spans.where(f"day >= DATE'{first_day - dt.timedelta(days=1)}'")
    return spans


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
