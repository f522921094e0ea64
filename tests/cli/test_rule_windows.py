"""Two windows of one online rule compared (`diff --rule NAME --window 24h`) and one printed
(`report --rule NAME --window 24h`): built from the turn scores of every scoring (pass) of
the rule, by the turns' start time, a turn scored twice counting once with its latest score.

The traffic is ADK-shaped spans from the real OTel SDK, stored through the real exporter
into a real DuckDB file, scored by real online passes (scoring/online.py, as serve runs
them) in three passes that do not line up with the windows."""

from __future__ import annotations

import json
import time
from pathlib import Path

import duckdb
import pytest

from tests.support.cli import invoke, one_line_error
from tests.support.new_database import new_database
from tests.support.span_factory import adk_like_spans
from tests.support.tiers import costly
from tracegrade.capture import DuckDBSpanExporter
from tracegrade.exit_codes import ExitCode
from tracegrade.scoring.judging.settings import JudgeSettings
from tracegrade.scoring.metrics import available_metrics
from tracegrade.scoring.online import activate, horizon_us, score_pass
from tracegrade.scoring.rules import Rule, parse_rule
from tracegrade.store import SpanWriter

HOUR_NS = 3600 * 10**9
SPECS = available_metrics()


def _rule(bound: float, backfill: bool = False) -> Rule:
    raw = {"name": "budgets", "criteria": {"tool_error_rate": {"max": bound}}}
    return parse_rule(raw, SPECS, "test rule", backfill=backfill)


def _passes(db: Path, rescore: bool) -> None:
    """The day before: 4 turns 30 h ago, one tool failing (one pass). The last day: 4 turns
    5 h ago, three failing (a pass), then 2 turns an hour ago, none failing (a pass).
    `rescore`: a new version of the rule that tolerates every failure then scores every
    turn again (backfill), in one pass over both windows."""
    now = time.time_ns()
    batches = [
        adk_like_spans(4, seed=1, start_ns=now - 30 * HOUR_NS, failing_tools={1}),
        adk_like_spans(4, seed=2, start_ns=now - 5 * HOUR_NS, failing_tools={0, 1, 2}),
        adk_like_spans(2, seed=3, start_ns=now - HOUR_NS),
    ]
    writer = SpanWriter.open(new_database(db))
    try:
        exporter = DuckDBSpanExporter(writer=writer)
        connection = writer.connection.cursor()
        rule = _rule(0.5, backfill=True)
        activate(connection, rule)
        for spans in batches:
            assert exporter.export(spans).name == "SUCCESS"
            assert exporter.force_flush()
            _pass(connection, rule)
        if rescore:
            tolerant = _rule(1.0, backfill=True)
            activate(connection, tolerant)
            _pass(connection, tolerant)
    finally:
        writer.close()


def _pass(connection: duckdb.DuckDBPyConnection, rule: Rule) -> None:
    done = score_pass(connection, rule, horizon_us(connection, 0), SPECS, JudgeSettings())
    assert done.scoring_id is not None


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("windows") / "windows.duckdb"
    _passes(path, rescore=False)
    return path


@pytest.fixture(scope="module")
def rescored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rescored") / "rescored.duckdb"
    _passes(path, rescore=True)
    return path


def _diff(db: Path, *args: str) -> dict[str, object]:
    result = invoke("diff", "--db", str(db), "--rule", "budgets", "--window", "24h", *args)
    return {"code": result.exit_code, "out": result.stdout, "err": result.stderr}


@costly
def test_the_last_day_is_compared_with_the_day_before_from_every_pass(db: Path) -> None:
    found = _diff(db, "--json")
    assert found["code"] == ExitCode.GATE_FAILED, found
    diff = json.loads(str(found["out"]))
    # Three passes; the windows hold 4 and 4 + 2 turns, by when the turns started.
    assert (diff["base_turns"], diff["new_turns"]) == (4, 6)
    assert diff["base_scoring_id"].startswith("budgets 24h to ")
    assert diff["base_selection"].startswith("rule budgets: turns of the 24h from ")
    assert diff["base_selection"].endswith("(1 scoring)")
    assert diff["new_selection"].endswith("(2 scorings)")
    breach = next(c for c in diff["changes"] if c["measure"] == "breach_rate:tool_error_rate")
    assert (breach["before"], breach["after"], breach["worse"]) == (0.25, 0.5, True)
    assert diff["failed"] is True
    text = _diff(db)
    assert text["code"] == ExitCode.GATE_FAILED
    assert "base: rule budgets: turns of the 24h from " in str(text["out"])
    assert "WORSE all: over tool_error_rate's budget 25% → 50% of turns" in str(text["out"])


@costly
def test_a_turn_scored_again_counts_once_with_its_latest_score(rescored: Path) -> None:
    found = _diff(rescored, "--json")
    diff = json.loads(str(found["out"]))
    assert (diff["base_turns"], diff["new_turns"]) == (4, 6)  # not 8 and 12
    breach = next(c for c in diff["changes"] if c["measure"] == "breach_rate:tool_error_rate")
    assert (breach["before"], breach["after"]) == (0.0, 0.0)  # the new version's scores
    assert diff["new_selection"].endswith("(1 scoring)")  # the backfill's pass alone
    assert found["code"] == ExitCode.OK


def test_a_window_prints_as_a_traffic_report(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "window.json"
    args = ("report", "--db", str(db), "--rule", "budgets", "--window", "24h")
    result = invoke(*args, "--json", str(out))
    assert result.exit_code == ExitCode.GATE_FAILED, result.output  # 3 turns over the bound
    assert result.stdout.startswith("Traffic · window budgets 24h to ")
    assert "rule budgets: turns of the 24h from " in result.stdout
    report = json.loads(out.read_text())
    assert report["overall"]["turns"] == 6
    assert report["overall"]["budgets_breached"] == {"tool_error_rate": 3}
    assert report["selection"]["scorings"] == 2
    metric = next(m for m in report["metrics"] if m["metric"] == "tool_error_rate")
    assert (metric["evaluated"], metric["failed_turns"]) == (6, 3)
    assert metric["mean"] == pytest.approx(0.5)
    markdown = invoke(*args, "--markdown")
    assert markdown.stdout.startswith("## ❌ tracegrade traffic: failed (window `budgets 24h to ")
    assert "| **all** | 6 | 0 (0%) | tool_error_rate 3 | 3 |" in markdown.stdout


def test_an_unknown_rule_names_the_closest(db: Path) -> None:
    result = invoke("diff", "--db", str(db), "--rule", "budget", "--window", "24h")
    assert result.exit_code == ExitCode.USAGE_ERROR
    assert one_line_error(result.stderr) == (
        "tracegrade: no online rule 'budget' has scored traffic (did you mean 'budgets'? "
        "rules that have: budgets)"
    )


def test_an_empty_window_is_one_line_and_exit_6(db: Path) -> None:
    result = invoke("diff", "--db", str(db), "--rule", "budgets", "--window", "30m")
    assert result.exit_code == ExitCode.NOTHING_SELECTED
    line = one_line_error(result.stderr)
    assert line.startswith(
        "tracegrade: nothing to compare: rule 'budgets' scored no turn that started in the 30m to "
    ), line
    assert line.endswith(
        "(widen the window: `tracegrade runs --traffic` lists the rule's scorings)"
    )
    bad = invoke("diff", "--db", str(db), "--rule", "budgets", "--window", "a day")
    assert one_line_error(bad.stderr) == (
        "tracegrade: --window 'a day': give a number and a unit, e.g. 90m, 24h or 7d"
    )
    alone = invoke("diff", "--db", str(db), "--window", "24h")
    assert alone.exit_code == ExitCode.USAGE_ERROR


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["--rule", "budgts"],
            "--rule budgts needs --window (24h, 7d, 90m): the rule's last window",
        ),
        (["--window", "24h"], "--window 24h needs --rule NAME: the window of which online rule"),
        (
            ["latest", "--rule", "budgets", "--window", "24h"],
            "--rule budgets --window 24h is a rule's window: give no run or scoring id",
        ),
    ],
    ids=["rule-alone", "window-alone", "with-a-run"],
)
def test_report_says_which_half_of_a_rules_window_is_missing(
    tmp_path: Path, args: list[str], expected: str
) -> None:
    result = invoke("report", *args, "--db", str(tmp_path / "none.duckdb"))
    assert result.exit_code == ExitCode.USAGE_ERROR
    assert one_line_error(result.stderr) == f"tracegrade: {expected}"
