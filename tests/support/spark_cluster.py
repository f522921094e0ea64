"""A real Spark standalone cluster on 127.0.0.1 (a master and workers, from the PySpark
distribution's jars) and a driver session on it, for the Spark tests.

Every daemon runs in its own process group, so stopping reaches the executors and Python
workers it started; ports are picked free up front (7077/8080 clash between parallel runs);
logs and work folders live under one base folder. Measured here: master ALIVE in ~5 s, two
workers in ~12-15 s, stop in < 1 s.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.serve.helpers import free_port

Status = dict[str, Any]


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent


class StandaloneCluster:
    def __init__(self, base: Path, workers: int = 2, start_timeout: float = 120.0) -> None:
        self.base = base
        self.workers = workers
        self.start_timeout = start_timeout
        self.procs: list[tuple[str, subprocess.Popen[bytes]]] = []
        self.master_port, self.master_ui = free_port(), free_port()
        self.url = f"spark://127.0.0.1:{self.master_port}"

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            SPARK_HOME=str(spark_home()),
            SPARK_LOCAL_IP="127.0.0.1",
            SPARK_LOCAL_HOSTNAME="127.0.0.1",  # no reverse lookup of the host's name
            SPARK_MASTER_HOST="127.0.0.1",
            SPARK_DAEMON_MEMORY="256m",
            SPARK_LOCAL_DIRS=str(self.base / "local"),
            SPARK_CONF_DIR=str(self.base / "conf"),  # empty: no stray spark-defaults.conf
            PYSPARK_PYTHON=sys.executable,  # the executors' Python: this venv's
        )
        return env

    def start(self) -> StandaloneCluster:
        for folder in ("logs", "local", "conf", "work"):
            (self.base / folder).mkdir(parents=True, exist_ok=True)
        daemon = "org.apache.spark.deploy"
        master = ["--host", "127.0.0.1", "--port", str(self.master_port)]
        self._spawn(
            "master", [f"{daemon}.master.Master", *master, "--webui-port", str(self.master_ui)]
        )
        # Workers after the master is up: started together they back off and take longer.
        self._wait(lambda s: s.get("status") == "ALIVE", "the master ALIVE")
        for i in range(self.workers):
            ports = ["--port", str(free_port()), "--webui-port", str(free_port())]
            work = ["--work-dir", str(self.base / "work" / f"w{i}")]
            worker = [f"{daemon}.worker.Worker", "--host", "127.0.0.1", *ports, *work]
            self._spawn(f"worker{i}", [*worker, "--cores", "1", "--memory", "1g", self.url])
        self._wait(self._workers_alive, f"{self.workers} workers ALIVE")
        return self

    def _workers_alive(self, status: Status) -> bool:
        alive = [w for w in status.get("workers", []) if w.get("state") == "ALIVE"]
        return len(alive) >= self.workers

    def _spawn(self, name: str, args: list[str]) -> None:
        with (self.base / "logs" / f"{name}.log").open("wb") as log:
            process = subprocess.Popen(
                [str(spark_home() / "bin" / "spark-class"), *args],
                env=self.env(),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # its own group: killpg reaches what it starts
                cwd=self.base,
            )
        self.procs.append((name, process))

    def status(self) -> Status:
        url = f"http://127.0.0.1:{self.master_ui}/json/"
        with urllib.request.urlopen(url, timeout=2) as reply:
            status: Status = json.load(reply)
            return status

    def _wait(self, ready: Callable[[Status], bool], what: str) -> None:
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            for name, process in self.procs:
                if process.poll() is not None:
                    raise RuntimeError(f"{name} exited {process.returncode}: {self.tail(name)}")
            try:
                if ready(self.status()):
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise TimeoutError(f"{what} not reached in {self.start_timeout} s: {self.tail('master')}")

    def tail(self, name: str) -> str:
        return (self.base / "logs" / f"{name}.log").read_text(errors="replace")[-3000:]

    def stop(self, timeout: float = 15.0) -> None:
        """Workers first (they stop their executors), then the master; then whatever is
        left in their process groups, by group id."""
        for _, process in reversed(self.procs):
            _signal_group(process, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        for _, process in self.procs:
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _signal_group(process, signal.SIGKILL)
                process.wait()
        for _, process in self.procs:
            _signal_group(process, signal.SIGKILL)


def _signal_group(process: subprocess.Popen[bytes], signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signum)


def driver_session(master: str, base: Path) -> Any:
    """A SparkSession on `master`, bound to 127.0.0.1, UTC, no UI."""
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    os.environ["SPARK_LOCAL_HOSTNAME"] = "127.0.0.1"
    builder = SparkSession.builder.master(master).appName("tracegrade-tests")
    settings = {
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.driver.memory": "1g",
        "spark.executor.memory": "768m",
        "spark.local.dir": str(base / "local"),
        "spark.ui.enabled": "false",
        "spark.pyspark.python": sys.executable,
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.shuffle.partitions": "4",
        "spark.ui.showConsoleProgress": "false",
    }
    for key, value in settings.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def stop_driver(session: Any) -> None:
    """`spark.stop()` leaves the driver JVM (the py4j gateway) running until Python exits:
    shut it too, so no JVM outlives the tests and a later session starts afresh."""
    from pyspark import SparkContext

    session.stop()
    gateway = SparkContext._gateway
    if gateway is None:
        return
    process = getattr(gateway, "proc", None)
    gateway.shutdown()
    if process is not None:
        if process.stdin:
            process.stdin.close()  # the gateway JVM exits when its stdin closes
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    SparkContext._gateway = None
    SparkContext._jvm = None
