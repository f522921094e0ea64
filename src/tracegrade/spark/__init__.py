"""Scoring the Parquet archive on Spark with the same `queries/` (extra `tracegrade[spark]`).

Spark reads the archive, keeps the selected traces, shuffles them by trace id and hands
each partition to a task that scores it with DuckDB and the shipped views and scorers
(Arrow in, Arrow out); the driver computes the case and run levels with the same SQL and
writes `scores` and `case_results` as Parquet. From a notebook:

    from tracegrade.spark import SparkScoring, score_to
    score_to(spark, "/data/spans", SparkScoring(sample=0.05), Path("scores/"))
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tracegrade.spark.job import SparkScoring, collect_rows, score_archive
from tracegrade.spark.levels import levels, write_outputs

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["SparkScoring", "score_archive", "score_to"]


def score_to(spark: SparkSession, archive: str, scoring: SparkScoring, out: Path) -> dict[str, int]:
    """Score the archive's selected turns; rows written per output table."""
    job = score_archive(spark, archive, scoring)
    return write_outputs(levels(collect_rows(job.rows), job.config, job.eval_spans), out)
