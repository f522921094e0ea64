"""Judges on production traffic: `score --sample` judges only the deterministic sample, a
conversation-level judge reads each sampled turn's session so far, and `--judge-budget-usd`
stops the calling once the estimate is spent and says what was left unjudged."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tests.support.adk_run import adk_settings
from tests.support.judging import USER, SwitchJudge, house_agent, scenario_invocations
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.cli.main import app
from tracegrade.scoring.selection import Selection
from tracegrade.store import SpanWriter, connect

pytestmark = costly  # every test here: see tests.support.tiers.costly

SESSIONS = [(USER["bedroom"], USER["kitchen"]), (USER["on"],), (USER["off"], USER["help"]),
            (USER["who"],), (USER["on"], USER["bedroom"])]  # fmt: skip
JUDGE = {"judge_model": SwitchJudge.NAME, "num_samples": 1}
CONFIG = {
    "criteria": {},
    "tracegrade": {
        "criteria": {"task_completion": {"threshold": 0.5, "judge_model_options": JUDGE}},
        "prices": {SwitchJudge.NAME: {"input": 1.0, "output": 10.0}},  # $0.002 a call
    },
}


def _traffic(captured: BlockingSpanProcessor) -> None:
    with adk_settings("2", content=True):
        for number, turns in enumerate(SESSIONS):
            scenario_invocations(house_agent(), turns, session=f"session-{number}")
    assert captured.force_flush()


def _score(db_path: Path, *options: str) -> tuple[int, str]:
    """`tracegrade score`, on the database the test recorded (and closed)."""
    config = db_path.with_name("traffic.json")
    config.write_text(json.dumps(CONFIG))
    arguments = ["score", "--db", str(db_path), "--config", str(config), *options]
    result = CliRunner().invoke(app, arguments, catch_exceptions=False)
    return result.exit_code, result.output


def _ids(db_path: Path, sql: str, params: list[object] | None = None) -> set[str]:
    connection = connect(db_path, read_only=True)
    try:
        return {row[0] for row in connection.execute(sql, params or []).fetchall()}
    finally:
        connection.close()


def _splitting_share(db_path: Path) -> float:
    """A sample share that keeps about half of the recorded traces. ADK draws trace ids at
    random, so a fixed 0.5 keeps none or all of 8 turns in 1 run of 128."""
    ids = _ids(db_path, "SELECT trace_id FROM turns")
    ranks = sorted(int(trace_id[-16:], 16) for trace_id in ids)
    middle = len(ranks) // 2
    return (ranks[middle - 1] + ranks[middle]) / 2 / 2**64


def test_only_the_sample_is_judged_each_turn_with_its_session_so_far(
    captured: BlockingSpanProcessor,
    writer: SpanWriter,
    db_path: Path,
    switch_judge: type[SwitchJudge],
) -> None:
    _traffic(captured)
    writer.close()
    share = _splitting_share(db_path)
    predicate, params = Selection(sample=share).predicate()
    sampled = _ids(db_path, f"SELECT turn_id FROM turns WHERE {predicate}", params)  # noqa: S608 — Selection's own SQL
    assert 0 < len(sampled) < 8
    code, output = _score(db_path, "--sample", repr(share))
    assert code == 0, output
    assert _ids(db_path, "SELECT DISTINCT turn_id FROM judgements") == sampled
    calls = [c.prompt for j in switch_judge.instances for c in j.calls]
    second = [p for p in calls if USER["kitchen"] in p or USER["help"] in p]
    assert all(USER["bedroom"] in p or USER["off"] in p for p in second)  # the session so far
    assert f"Judges: {len(sampled)} answers · {len(sampled)} new calls" in output


def test_a_judge_budget_stops_the_calls_and_says_what_was_left(
    captured: BlockingSpanProcessor,
    writer: SpanWriter,
    db_path: Path,
    switch_judge: type[SwitchJudge],
) -> None:
    _traffic(captured)
    writer.close()
    code, output = _score(
        db_path, "--since", "1d", "--judge-budget-usd", "0.012", "--judge-concurrency", "1"
    )
    assert code == 0, output
    made = switch_judge.call_count()
    assert 0 < made < 8  # eight turns; the budget stopped the calling
    assert f"judge budget $0.0120 spent: {8 - made} judge calls not made" in output
    unjudged = _ids(
        db_path, "SELECT turn_id FROM scores WHERE detail->>'reason' LIKE 'not judged:%'"
    )
    assert len(unjudged) == 8 - made
    _score(db_path, "--since", "1d", "--judge-budget-usd", "0.012", "--judge-concurrency", "1")
    assert switch_judge.call_count() > made  # the cached answers cost nothing: more fit now
