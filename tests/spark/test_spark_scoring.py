"""Scoring the archive on a real Spark cluster gives `tracegrade score`'s rows, row for row,
and its verdict and exit code: traffic at a sample or in a window, and an eval run with its
own criteria."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import duckdb
import pytest
from typer.testing import CliRunner

from tests.support.archive import RUNS_FIXTURE, eval_runs_db, long_session_db, traffic_db
from tracegrade.ingest.files import ingest_file
from tracegrade.store import SpanWriter, connect
from tracegrade.store.archive import archive_database
from tracegrade.workspace.scoring import answer_wire

pytestmark = pytest.mark.slow
BASE_RUN = "20260101T000000-base"
_COLUMNS = (
    "level, coalesce(run_id, '') AS run_id, coalesce(case_id, '') AS case_id, "
    "coalesce(turn_id, '') AS turn_id, metric, score, threshold, passed, status, "
    "detail::VARCHAR AS detail"
)


# What a scoring's row in `scorings` says, but for its id and time.
_SCORING = "run_id, selection::VARCHAR, config::VARCHAR, turns, error_rate, verdict, exit_code"


def _local_scores(db: Path, request: dict[str, Any]) -> list[tuple[Any, ...]]:
    return _local_scoring(db, request)[0]


def _local_scoring(
    db: Path, request: dict[str, Any]
) -> tuple[list[tuple[Any, ...]], tuple[Any, ...]]:
    """`tracegrade score`'s rows in `scores`, and its row in `scorings`."""
    connection = connect(db)
    scoring_id = answer_wire(connection, request)["scoring_id"]
    rows = connection.execute(
        f"SELECT {_COLUMNS} FROM scores WHERE scoring_id = ? ORDER BY ALL",  # noqa: S608 — constants
        [scoring_id],
    ).fetchall()
    scoring = connection.execute(
        f"SELECT {_SCORING} FROM scorings WHERE scoring_id = ?",  # noqa: S608 — constants
        [scoring_id],
    ).fetchall()
    connection.close()
    return rows, scoring[0]


def _spark_scoring(out: Path) -> tuple[Any, ...]:
    connection = duckdb.connect()
    rows = connection.execute(
        f"SELECT {_SCORING} FROM read_parquet(?)",  # noqa: S608 — constants
        [str(out / "scorings.parquet")],
    ).fetchall()
    connection.close()
    assert len(rows) == 1
    return rows[0]


def _spark_scores(out: Path) -> list[tuple[Any, ...]]:
    connection = duckdb.connect()
    rows = connection.execute(
        f"SELECT {_COLUMNS} FROM read_parquet(?) ORDER BY ALL",  # noqa: S608 — constants
        [str(out / "scores.parquet")],
    ).fetchall()
    connection.close()
    return rows


def _assert_same(spark_rows: list[tuple[Any, ...]], local_rows: list[tuple[Any, ...]]) -> None:
    """Equal, but for the last bits of means: Spark's tasks and DuckDB's threads add floats
    in different orders (measured: 2 of 2828 run-level means differed at 1e-15)."""
    assert len(spark_rows) == len(local_rows) > 0
    for mine, theirs in zip(spark_rows, local_rows, strict=True):
        for a, b in zip(mine, theirs, strict=True):
            if isinstance(a, float) and isinstance(b, float):
                assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12), (mine, theirs)
            elif isinstance(a, str) and a.startswith("{"):
                assert json.loads(a) == json.loads(b), (mine, theirs)
            else:
                assert a == b, (mine, theirs)


def _archived_twin(db: Path, tmp_path: Path) -> Path:
    """A copy of `db` moved whole into an archive; `db` itself stays hot."""
    twin = tmp_path / "twin.duckdb"
    shutil.copy(db, twin)
    archive_database(twin, tmp_path / "archive", shard="s0", retain_days=0)
    return tmp_path / "archive"


def test_traffic_sample_scores_equal_local(spark: Any, tmp_path: Path) -> None:
    """Through `python -m tracegrade.spark score` (in this process: it finds the session);
    --since reaches back past the data, so day pruning runs and keeps every turn."""
    from tracegrade.spark.__main__ import app

    db = traffic_db(tmp_path / "hot.duckdb")
    archive = _archived_twin(db, tmp_path)
    args = ["score", "--archive", str(archive), "--out", str(tmp_path / "out")]
    result = CliRunner().invoke(app, [*args, "--sample", "0.5", "--since", "3650d"])
    assert result.exit_code == 0, result.output
    written = json.loads(result.output.strip().splitlines()[-1])

    local = _local_scores(db, {"sample": 0.5})
    assert written["scores"] == len(local)
    turns = {row[3] for row in local if row[0] == "turn"}
    assert 20 < len(turns) < 100  # about half of the 120 turns
    _assert_same(_spark_scores(tmp_path / "out"), local)


def test_window_takes_a_long_sessions_late_turn_and_gates_as_local(
    spark: Any, tmp_path: Path
) -> None:
    """--since 1d: of a trace begun 3 days ago (filed under that day), its turn of an hour
    ago is scored, its first turn and a trace of 2 days ago are not, as locally; that turn
    is over the token budget, so Spark exits 1 and writes local's verdict."""
    from tracegrade.spark.__main__ import app

    db = long_session_db(tmp_path / "hot.duckdb", time.time_ns())
    archive = _archived_twin(db, tmp_path)
    budget = tmp_path / "budget.json"
    budget.write_text(json.dumps({"criteria": {"token_usage": {"max": 500}}}))
    args = ["score", "--archive", str(archive), "--out", str(tmp_path / "out")]
    result = CliRunner().invoke(app, [*args, "--since", "1d", "--config", str(budget)])
    written = json.loads(result.stdout.strip().splitlines()[-1])

    request = {"since_s": 86400, "config": json.loads(budget.read_text())}
    local, local_scoring = _local_scoring(db, request)
    assert {row[3] for row in local if row[0] == "turn"} == {
        "00000000000000019e3779b97f4a7c15-0000000000000004"  # the session's second turn
    }
    _assert_same(_spark_scores(tmp_path / "out"), local)
    assert local_scoring[-2:] == ("failed", 1)
    assert _spark_scoring(tmp_path / "out") == local_scoring
    assert (result.exit_code, written["verdict"]) == (1, "failed")
    assert "the gate says failed" in result.stderr


def test_eval_run_scores_equal_local(spark: Any, tmp_path: Path) -> None:
    """Locally, also on the archived twin after its file was ingested again: the re-sent
    spans are not stored twice, so its scores still equal Spark's and the hot database's."""
    from tracegrade.spark import SparkScoring, score_to

    db = eval_runs_db(tmp_path / "hot.duckdb")
    archive = _archived_twin(db, tmp_path)
    written = score_to(
        spark, str(archive), SparkScoring(run_id=BASE_RUN, partitions=4), tmp_path / "out"
    )
    writer = SpanWriter.open(tmp_path / "twin.duckdb")
    assert ingest_file(RUNS_FIXTURE, writer).stored == 0
    writer.close()

    local, local_scoring = _local_scoring(db, {"run_id": BASE_RUN})
    assert written["case_results"] > 0
    _assert_same(_spark_scores(tmp_path / "out"), local)
    assert _spark_scoring(tmp_path / "out") == local_scoring
    assert (written["verdict"], written["exit_code"]) == local_scoring[-2:]
    _assert_same(_local_scores(tmp_path / "twin.duckdb", {"run_id": BASE_RUN}), local)
    assert {row[0] for row in local} == {"turn", "case", "run"}


def test_spark_submit_runs_the_module_file(spark: Any, tmp_path: Path) -> None:
    """docs/scaling.md's `spark-submit .../tracegrade/spark/__main__.py score ...`, in its own
    driver. In local[1] mode: the session's application holds both workers' cores, and a second
    application on the cluster would wait for them (the cluster is tested above)."""
    import tracegrade.spark.__main__ as entry
    from tests.support.spark_cluster import spark_home

    db = traffic_db(tmp_path / "hot.duckdb")
    archive = _archived_twin(db, tmp_path)
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable}
    submitted = subprocess.run(
        [str(spark_home() / "bin" / "spark-submit"), "--master", "local[1]",
         "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.ui.enabled=false",
         entry.__file__, "score", "--archive", str(archive), "--out", str(tmp_path / "out"),
         "--sample", "0.5", "--partitions", "2"],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip

    assert submitted.returncode == 0, submitted.stderr[-3000:]
    written = json.loads(submitted.stdout.strip().splitlines()[-1])
    local = _local_scores(db, {"sample": 0.5})
    assert written["scores"] == len(local)
    _assert_same(_spark_scores(tmp_path / "out"), local)


def test_judged_metrics_are_refused_by_name(spark: Any, tmp_path: Path) -> None:
    from tracegrade.errors import ConfigError
    from tracegrade.spark import SparkScoring, score_to

    archive = _archived_twin(traffic_db(tmp_path / "hot.duckdb"), tmp_path)
    config = {"criteria": {"hallucinations_v1": 0.8, "tool_trajectory_avg_score": 1.0}}

    with pytest.raises(ConfigError, match=r"not scored on Spark: hallucinations_v1;"):
        score_to(spark, str(archive), SparkScoring(config=config), tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_an_evalset_scoring_is_refused_in_one_line(spark: Any) -> None:
    """Matching sessions to an eval set's cases needs every session's turns in one place;
    Spark's tasks hold a shuffle partition each, so `score --evalset` stays local."""
    from tracegrade.errors import ConfigError
    from tracegrade.spark import SparkScoring
    from tracegrade.workspace.requests import ScoreRequest

    evalset = (
        Path(__file__).resolve().parents[2] / "examples" / "home_automation" / "home.evalset.json"
    )
    request = ScoreRequest(evalset=evalset)
    with pytest.raises(ConfigError, match=r"^--evalset is not scored on Spark: score it with"):
        SparkScoring.from_request(request)


def test_a_column_only_newer_files_have_is_read(spark: Any, tmp_path: Path) -> None:
    """The schema evolves by added columns; the job reads with mergeSchema, so a column
    that a later file adds (here in the later day's file) is not dropped."""
    from tracegrade.spark.job import read_archive

    db = traffic_db(tmp_path / "hot.duckdb", seeds=range(1, 2))
    traffic_db(db, seeds=range(90, 91))  # the next day
    root = _archived_twin(db, tmp_path)
    (newer,) = root.glob("shard=s0/day=2026-01-02/hour=*/*.parquet")
    connection = duckdb.connect()
    connection.execute(
        f"COPY (SELECT *, 'x' AS added_later FROM read_parquet('{newer}', "  # noqa: S608 — a test path
        f"hive_partitioning = false)) TO '{newer}.new' (FORMAT parquet)"
    )
    connection.close()
    Path(f"{newer}.new").replace(newer)

    spans = read_archive(spark, str(root))
    assert "added_later" in spans.columns
    assert spans.where("added_later = 'x'").count() == 15
    assert spans.where("added_later IS NULL").count() == 15
    types = dict(spans.dtypes)  # as docs/scaling.md says Spark reads them
    assert (types["day"], types["hour"], types["attributes"]) == ("date", "int", "string")
