"""Spark scoring of one day's partitions of the synthetic archive, on a real standalone
cluster on 127.0.0.1 (tests/support/spark_cluster.py) with 1, then 2 workers of 1 core.

Each run scores every turn of the day (path <archive>/shard=s0/day=D, `--sample 1`, or
run.py's --spark-sample), then a run scoring a handful of turns in as many tasks measures a
task's fixed cost. Per task, the
Spark UI's REST API gives the run time and the spans it read from the shuffle; the CPU
seconds of the cluster's processes (daemons, executors, Python workers) and of this driver
come from /proc (utime+stime, children included), as wall time under load misleads.
"""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from measure import say, timed

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo: tests.support

_TICK = os.sysconf("SC_CLK_TCK")


@dataclass
class SparkFigures:
    workers: int
    partitions: int
    turns: int
    wall_s: float
    cpu_s: float
    load: tuple[float, float]
    tasks: list[dict[str, float]]

    def summary(self) -> dict[str, Any]:
        busy = [t for t in self.tasks if t["spans"] > 0]
        return {
            "workers": self.workers,
            "partitions": self.partitions,
            "turns": self.turns,
            "wall_s": round(self.wall_s, 1),
            "cpu_s": round(self.cpu_s, 1),
            "load": [round(x, 1) for x in self.load],
            "tasks": len(busy),
            "task_s_mean": round(sum(t["run_s"] for t in busy) / max(1, len(busy)), 3),
            "spans_per_task": round(sum(t["spans"] for t in busy) / max(1, len(busy))),
            "task_s_sum": round(sum(t["run_s"] for t in busy), 1),
        }


def run_cluster(
    workers: int,
    day_path: str,
    out: Path,
    base: Path,
    partitions: int,
    tiny: float,
    sample: float = 1.0,
) -> list[SparkFigures]:
    """The day's scoring (a `sample` of its turns), then the fixed-cost run (sample
    `tiny`), on `workers` workers."""
    from tests.support.spark_cluster import StandaloneCluster, stop_driver

    cluster = StandaloneCluster(base / f"w{workers}", workers=workers).start()
    session, ui = _session(cluster.url, base / f"w{workers}")
    try:
        roots = {p.pid for _, p in cluster.procs} | {os.getpid()}
        return [
            _score(
                session,
                ui,
                roots,
                workers,
                day_path,
                out / f"w{workers}-{name}",
                partitions,
                share,
            )
            for name, share in (("day", sample), ("tiny", tiny))
        ]
    finally:
        stop_driver(session)
        cluster.stop()


def _score(
    session: Any,
    ui: int,
    roots: set[int],
    workers: int,
    path: str,
    out: Path,
    partitions: int,
    sample: float,
) -> SparkFigures:
    from tracegrade.spark import SparkScoring, score_to

    seen = _stage_ids(ui)
    cpu = _cpu(roots)
    with timed() as timing:
        written = score_to(session, path, SparkScoring(sample=sample, partitions=partitions), out)
    cpu = _cpu(roots) - cpu
    import duckdb

    ((turns,),) = duckdb.execute(
        "SELECT count(*) FROM read_parquet(?) WHERE level = 'turn' AND metric = "
        "(SELECT min(metric) FROM read_parquet(?) WHERE level = 'turn')",
        [str(out / "scores.parquet")] * 2,
    ).fetchall()
    figures = SparkFigures(
        workers, partitions, int(turns), timing.wall_s, cpu, timing.load, _tasks(ui, seen)
    )
    say(f"spark {workers} worker(s), sample {sample}: {json.dumps(figures.summary())} {written}")
    return figures


def _session(master: str, base: Path) -> tuple[Any, int]:
    """As tests.support.spark_cluster.driver_session, with the UI on (its REST API gives
    each task's metrics) and 2 GB for the driver, which collects every turn's rows."""
    from pyspark.sql import SparkSession

    from tests.serve.helpers import free_port

    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    os.environ["SPARK_LOCAL_HOSTNAME"] = "127.0.0.1"
    ui = free_port()
    settings = {
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.driver.memory": "2g",
        "spark.driver.maxResultSize": "2g",
        "spark.executor.memory": "768m",
        "spark.local.dir": str(base / "local"),
        "spark.ui.port": str(ui),
        "spark.pyspark.python": sys.executable,
        "spark.sql.session.timeZone": "UTC",
        "spark.ui.showConsoleProgress": "false",
    }
    builder = SparkSession.builder.master(master).appName("tracegrade-bench-scale")
    for key, value in settings.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session, ui


def _rest(ui: int, path: str) -> Any:
    with urllib.request.urlopen(f"http://127.0.0.1:{ui}/api/v1/{path}", timeout=30) as reply:
        return json.load(reply)


def _app(ui: int) -> str:
    return str(_rest(ui, "applications")[0]["id"])


def _stage_ids(ui: int) -> set[int]:
    return {s["stageId"] for s in _rest(ui, f"applications/{_app(ui)}/stages")}


def _tasks(ui: int, seen: set[int]) -> list[dict[str, float]]:
    """The scoring tasks of the stages run since `seen`: those reading the shuffle."""
    time.sleep(2)  # the listener bus lags the job's end
    app = _app(ui)
    tasks = []
    for stage in _rest(ui, f"applications/{app}/stages?status=complete&details=true"):
        if stage["stageId"] in seen:
            continue
        for task in (stage.get("tasks") or {}).values():
            metrics = task.get("taskMetrics") or {}
            spans = (metrics.get("shuffleReadMetrics") or {}).get("recordsRead", 0)
            if spans:
                tasks.append({"run_s": metrics["executorRunTime"] / 1000, "spans": spans})
    return tasks


def _cpu(roots: set[int]) -> float:
    """CPU seconds of these processes and all their live descendants, with the children
    they reaped. By descendants, not process groups: PySpark's daemon puts the Python
    workers in a group of their own."""
    stats: dict[int, list[str]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            stats[int(stat.parent.name)] = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, ValueError):
            continue
    children: dict[int, list[int]] = {}
    for pid, fields in stats.items():
        children.setdefault(int(fields[1]), []).append(pid)  # ppid
    total, todo = 0, [pid for pid in roots if pid in stats]
    while todo:
        pid = todo.pop()
        total += sum(int(x) for x in stats[pid][11:15])  # utime stime cutime cstime
        todo += children.get(pid, [])
    return total / _TICK
