"""Hostile SQL through every command option that reaches a query: refused with exit code 2
and one line, nothing written, no file read. In-process (typer's runner) for breadth; one
real process checks the same path end to end."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.support.hostile_sql import CONDITIONS, QUERIES, SECRET_TEXT, fill, make_secret
from tests.support.paths import DATA
from tests.support.tiers import costly
from tracegrade.cli.main import app
from tracegrade.exit_codes import ExitCode
from tracegrade.ingest import ingest_file
from tracegrade.store import SpanWriter, connect

TRACEGRADE = str(Path(sys.executable).with_name("tracegrade"))


@pytest.fixture(scope="module")
def traffic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("hostile") / "traffic.duckdb"
    writer = SpanWriter.open(db)
    for name in ("adk_v2_a", "adk_v2_b", "adk_v2_c"):
        ingest_file(DATA / "traces" / f"{name}.otlp.jsonl", writer)
    writer.close()
    return db


def state(db: Path) -> dict[str, Any]:
    """What a write would change: the spans, the tables, the scorings."""
    connection = connect(db, read_only=True)
    try:
        return {
            "spans": connection.execute("SELECT * FROM spans ORDER BY span_id").fetchall(),
            "tables": connection.execute(
                "SELECT table_name FROM duckdb_tables() ORDER BY 1"
            ).fetchall(),
            "scorings": connection.execute("SELECT count(*) FROM scorings").fetchall(),
        }
    finally:
        connection.close()


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def assert_refused(code: int, output: str, secret: Path) -> None:
    assert code == ExitCode.USAGE_ERROR, output[-2000:]
    assert output.startswith("tracegrade: "), output[-2000:]
    assert "Traceback" not in output
    assert SECRET_TEXT not in output


@pytest.mark.parametrize("condition", CONDITIONS, ids=range(len(CONDITIONS)))
@costly
def test_score_and_export_refuse_a_hostile_where(
    traffic: Path, tmp_path: Path, condition: str
) -> None:
    secret, out = make_secret(tmp_path), tmp_path / "out"
    where = fill(condition, secret, out)
    before = state(traffic)
    assert_refused(*invoke("score", "--db", str(traffic), "--where", where), secret)
    evalset = tmp_path / "x.evalset.json"
    assert_refused(
        *invoke("export-evalset", str(evalset), "--where", where, "--db", str(traffic)), secret
    )
    assert state(traffic) == before
    assert not out.exists()
    assert not evalset.exists()


@pytest.mark.parametrize("query", QUERIES, ids=range(len(QUERIES)))
def test_sql_refuses_a_hostile_query(traffic: Path, tmp_path: Path, query: str) -> None:
    secret, out = make_secret(tmp_path), tmp_path / "out"
    before = state(traffic)
    assert_refused(*invoke("sql", fill(query, secret, out), "--db", str(traffic)), secret)
    assert state(traffic) == before
    assert not out.exists()


@pytest.mark.parametrize("since", ["1h); DELETE FROM spans; SELECT (1", "abc", "-5m", "1e400h"])
def test_score_refuses_a_hostile_since(traffic: Path, tmp_path: Path, since: str) -> None:
    before = state(traffic)
    assert_refused(*invoke("score", "--db", str(traffic), "--since", since), tmp_path)
    assert state(traffic) == before


def test_a_plain_where_still_scores_the_turns_it_picks(traffic: Path) -> None:
    before = state(traffic)
    code, output = invoke("score", "--db", str(traffic), "--where", "user_text = 'And in Tokyo?'")
    assert code in (ExitCode.OK, ExitCode.ERRORS_OVER_LIMIT), output
    assert "traffic where user_text = 'And in Tokyo?' · 1 turn scored" in output, output
    after = state(traffic)
    assert after["scorings"][0][0] == before["scorings"][0][0] + 1
    assert after["spans"] == before["spans"]


def test_the_real_command_refuses_the_injection(traffic: Path) -> None:
    before = state(traffic)
    done = subprocess.run(
        [TRACEGRADE, "score", "--db", str(traffic), "--where", CONDITIONS[0]],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == ExitCode.USAGE_ERROR, done.stderr
    assert done.stderr.startswith("tracegrade: where 'true); DELETE FROM spans")
    assert len(done.stderr.strip().splitlines()) == 1
    assert state(traffic) == before
