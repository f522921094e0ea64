"""A Spark standalone cluster (a master and two workers on 127.0.0.1) for the whole session.

Without PySpark or Java the Spark tests skip, unless TRACEGRADE_REQUIRE_SPARK=1 (set by
.ci/run), where they fail: CI must never go green by skipping them. Where the cluster cannot
start, the tests run in local mode and say so, except under that variable.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REQUIRED = os.environ.get("TRACEGRADE_REQUIRE_SPARK") == "1"


def _missing() -> str | None:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed (pip install 'tracegrade[spark]')"
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "no Java: Spark 4 needs Java 17+"
    return None


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    missing = _missing()
    if missing and REQUIRED:
        pytest.fail(f"TRACEGRADE_REQUIRE_SPARK=1 but {missing}")
    if missing:
        pytest.skip(missing)
    from tests.support.spark_cluster import StandaloneCluster, driver_session, stop_driver

    base = tmp_path_factory.mktemp("spark")
    cluster: StandaloneCluster | None = StandaloneCluster(base, workers=2)
    try:
        assert cluster is not None
        cluster.start()
        session = driver_session(cluster.url, base)
        print(f"\nSpark: standalone cluster {cluster.url}, 2 workers")
    except (OSError, RuntimeError, TimeoutError) as exc:
        assert cluster is not None
        cluster.stop()
        if REQUIRED:
            pytest.fail(f"the Spark cluster did not start: {exc}")
        cluster = None
        print(f"\nSpark: local[2] mode, the standalone cluster did not start: {exc}")
        session = driver_session("local[2]", base)
    session.sparkContext.setLogLevel("ERROR")
    try:
        yield session
    finally:
        stop_driver(session)
        if cluster is not None:
            cluster.stop()
        _assert_nothing_left(base)


def _assert_nothing_left(base: Path) -> None:
    """No JVM or Python worker of ours outlives the tests."""
    found = subprocess.run(["pgrep", "-f", str(base)], capture_output=True, text=True).stdout
    assert not found.strip(), f"processes left running: {found}"
