"""Query results as a person or the next program needs them: `tracegrade sql`, `runs`,
and `export-evalset` refusing to write a set with nothing in it."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests.report.helpers import RUNS_FIXTURE
from tests.support.adk_run import run_scenario
from tests.support.cli import invoke
from tests.support.paths import DATA
from tests.support.scenarios import SCENARIOS
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.exit_codes import ExitCode
from tracegrade.ingest import ingest_file
from tracegrade.store import SpanWriter

LONG = "turn-" + "0123456789abcdef" * 8  # 133 characters: wider than any terminal here
NESTED = f"""
SELECT '{LONG}' AS turn_id, [1, 2] AS calls, {{'name': 'lookup', 'args': [true]}} AS call,
       MAP {{'k': 2}} AS m, NULL AS nothing, 'say "hi", twice' AS text
"""


@pytest.fixture
def traffic_db(writer: SpanWriter, db_path: Path) -> Path:
    ingest_file(DATA / "traces" / "adk_v2_b.otlp.jsonl", writer)
    writer.close()
    return db_path


def test_a_piped_table_keeps_every_value_whole(traffic_db: Path) -> None:
    done = invoke("sql", NESTED, "--db", str(traffic_db), columns=80)

    assert done.exit_code == 0
    row = next(line for line in done.stdout.splitlines() if LONG in line)
    cells = [cell.strip() for cell in row.strip("│ ").split("│")]
    assert cells == [
        LONG,
        "[1, 2]",
        '{"name": "lookup", "args": [true]}',
        '{"k": 2}',
        "",
        'say "hi", twice',
    ]


def test_csv_writes_nested_values_as_json(traffic_db: Path) -> None:
    done = invoke("sql", NESTED, "-f", "csv", "--db", str(traffic_db))

    rows = list(csv.reader(io.StringIO(done.stdout)))
    assert rows[0] == ["turn_id", "calls", "call", "m", "nothing", "text"]
    assert [json.loads(v) for v in rows[1][1:4]] == [
        [1, 2],
        {"name": "lookup", "args": [True]},
        {"k": 2},
    ]
    assert rows[1][4:] == ["", 'say "hi", twice']


@costly
def test_json_is_one_array_and_jsonl_an_object_a_line(traffic_db: Path) -> None:
    query = "SELECT turn_index, tool_calls FROM turns ORDER BY start_ns"
    expected = [{"turn_index": None, "tool_calls": 3}, {"turn_index": None, "tool_calls": 1}]

    as_json = invoke("sql", query, "-f", "json", "--db", str(traffic_db))
    as_jsonl = invoke("sql", query, "-f", "jsonl", "--db", str(traffic_db))
    nothing = invoke("sql", query + " LIMIT 0", "-f", "json", "--db", str(traffic_db))

    assert json.loads(as_json.stdout) == expected
    assert [json.loads(line) for line in as_jsonl.stdout.splitlines()] == expected
    assert json.loads(nothing.stdout) == []


def test_runs_limit_and_json(writer: SpanWriter, db_path: Path) -> None:
    ingest_file(RUNS_FIXTURE, writer)  # two eval runs
    writer.close()
    db = db_path
    every = json.loads(invoke("runs", "--json", "--db", str(db)).stdout)
    newest = json.loads(invoke("runs", "--json", "--limit", "1", "--db", str(db)).stdout)
    table = invoke("runs", "--limit", "1", "--db", str(db)).stdout

    assert len(every) > 1
    assert newest == every[:1]
    assert set(newest[0]) >= {"run_id", "started_at", "verdict", "passed_cases", "cases"}
    assert newest[0]["run_id"] in table
    assert every[1]["run_id"] not in table


@costly
def test_export_with_nothing_replayable_writes_nothing(
    captured: BlockingSpanProcessor, writer: SpanWriter, db_path: Path, tmp_path: Path
) -> None:
    run_scenario(SCENARIOS["multi_turn"])  # content capture off: no user text recorded
    assert captured.force_flush()
    writer.close()
    out = tmp_path / "golden.evalset.json"

    done = invoke("export-evalset", str(out), "--where", "true", "--db", str(db_path))

    assert done.exit_code == ExitCode.USAGE_ERROR
    assert "user text was not captured" in done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "tracegrade: nothing to export: no session matching 'true' can be replayed (see above)"
    )
    assert not out.exists()


def test_the_summary_fits_the_width_it_is_given(writer: SpanWriter, db_path: Path) -> None:
    from tests.report.helpers import BASE_RUN, score_run

    ingest_file(RUNS_FIXTURE, writer)
    score_run(writer.connection, BASE_RUN)
    writer.close()

    piped = invoke("report", BASE_RUN, "--db", str(db_path), columns=None).stdout
    narrow = invoke("report", BASE_RUN, "--db", str(db_path), columns=80).stdout

    assert "p50/p95 tokens       cost" in piped
    assert "left out" not in piped
    assert max(map(len, narrow.splitlines())) <= 80
    assert "Per-case latency and cost left out to fit 80 columns (see Totals)" in narrow
