"""Scoring the Parquet archive on Spark with the same `queries/` (extra `tracegrade[spark]`).

Spark reads the archive, keeps the selected traces, shuffles them by trace id and hands
each partition to a task that scores it with DuckDB and the shipped views and scorers
(Arrow in, Arrow out); the driver computes the case and run levels and the gate's verdict
with the same SQL and code, and writes `scores`, `case_results` and `scorings` as Parquet.
From a notebook:

    from tracegrade.spark import SparkScoring, score_to
    summary = score_to(spark, "/data/spans", SparkScoring(sample=0.05), Path("scores/"))
    summary["verdict"], summary["exit_code"]    # as `tracegrade score` decides them
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracegrade.spark.job import SparkScoring, collect_rows, score_archive
from tracegrade.spark.levels import levels, write_outputs

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["SparkScoring", "score_archive", "score_to"]


def score_to(spark: SparkSession, archive: str, scoring: SparkScoring, out: Path) -> dict[str, Any]:
    """Score the archive's selected turns into `out`: the rows written per output table,
    the scoring id, and the gate's verdict and exit code (as `tracegrade score` gives)."""
    job = score_archive(spark, archive, scoring)
    connection, result = levels(collect_rows(job.rows), job.config, job.selection, job.eval_spans)
    try:
        written = write_outputs(connection, out)
    finally:
        connection.close()
    return {
        **written,
        "scoring_id": result.scoring_id,
        "verdict": result.verdict,
        "exit_code": int(result.exit_code),
    }
