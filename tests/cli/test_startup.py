"""What `tracegrade` loads to start: a command's help or the version needs no agent framework,
exporter, server or database engine, and a read command on a database no more than DuckDB,
so they stay lazy (time is measured in bench/startup)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.report.helpers import scored_db
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


# What a read command on a database must not pay for either: the agent framework and the
# OTel SDK (the harness's), numpy (the writer's, the write-ahead log check's, and DuckDB's
# `create_function`'s) and the JSON Schema check, which only a query reading
# `tool_calls.valid` needs (store/view_functions.py).
READ_HEAVY = [*(name for name in HEAVY if name != "duckdb"), "jsonschema_rs"]


@pytest.fixture(scope="module")
def scored_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(scored_db(tmp_path_factory.mktemp("startup") / "runs.duckdb"))


@pytest.mark.parametrize("args", [["runs"], ["runs", "--json"], ["sql", "select 1"], ["report"]])
def test_a_read_command_on_a_database_loads_no_writer_harness_or_check(
    args: list[str], scored_file: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _LOADED, json.dumps([*args, "--db", scored_file])],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr  # 1: the fixture run's gate fails
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert {"tracegrade", "duckdb"} <= loaded  # the command did read the file
    assert sorted(loaded & set(READ_HEAVY)) == []


def test_scoring_without_judged_metrics_loads_no_agent_framework(scored_file: str) -> None:
    # Planning a judge imports ADK's evaluation package (~0.5 s of every `score`, measured):
    # criteria that name no judged metric have no judge to plan.
    done = subprocess.run(
        [sys.executable, "-c", _LOADED, json.dumps(["score", "--db", scored_file])],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    assert "Totals:" in done.stdout  # it scored
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert sorted(loaded & {"google", "grpc", "uvicorn"}) == []
