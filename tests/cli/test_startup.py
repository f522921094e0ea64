"""What `tracegrade` loads to start: a command's help or the version needs no agent framework,
exporter, server or database engine, so they stay lazy (time is measured in bench/startup)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support.cli import ROOT

# Each the top of a package a read command must not pay for at start.
HEAVY = ["google", "grpc", "uvicorn", "h11", "jinja2", "opentelemetry", "duckdb", "numpy"]

_LOADED = """
import json, sys
sys.argv = ["tracegrade", *json.loads(sys.argv[1])]
from tracegrade.cli.main import main
try:
    main()
except SystemExit:
    pass
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})))
"""


@pytest.mark.parametrize(
    "args", [["--version"], ["--help"], ["sql", "--help"], ["runs", "--help"], ["report", "--help"]]
)
def test_a_fresh_interpreter_starts_without_the_heavy_packages(args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _LOADED, json.dumps(args)],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert {"tracegrade", "typer"} <= loaded  # the app did run
    assert sorted(loaded & set(HEAVY)) == []
