"""The Collector these tests run: built once per session by scripts/build-collector.sh (which
caches the binary between runs). Under CI (CI set) a missing Go or a failed build fails the tests;
elsewhere they skip with the reason."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.collector.helpers import ROOT

BUILD = ROOT / "scripts" / "build-collector.sh"


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def otelcol() -> Path:
    if shutil.which("go") is None:
        _unavailable(
            "no Go on PATH: scripts/build-collector.sh needs Go 1.26+ to build the Collector"
        )
    # The first build downloads and compiles a few hundred modules: allow for a loaded machine.
    done = subprocess.run([str(BUILD)], capture_output=True, text=True, timeout=3600, check=False)
    if done.returncode != 0:
        _unavailable(f"scripts/build-collector.sh failed: {done.stderr[-3000:]}")
    return Path(done.stdout.strip().splitlines()[-1])
