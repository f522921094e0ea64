"""`serve --rules`: a real serve process scores traffic as the real OTel SDK exporter sends
it, by two rules (one judged by a scripted judge, one reference-free): each turn once per
rule version, nothing lost or doubled by a kill -9 mid-scoring, a changed rule scoring only
the turns after the change, and a spent daily judge budget stopping judge calls and saying so.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from tests.support.adk_run import ROUTER, adk_settings
from tests.support.cli import one_line_error
from tests.support.judging import USER, house_agent, scenario_invocations

from .helpers import JSON, Server, start_server, when_scoring_is_free

# Imported by the serve process (the judged rule's judge_imports). The judge hangs while
# the file `hang` exists beside this module, and touches `judging` when asked, so a test
# can kill the server while a pass is open.
JUDGES = """
import asyncio
import pathlib

from tracegrade.testing import ScriptedJudge, judge_answers

HERE = pathlib.Path(__file__).parent


class _Judge(ScriptedJudge):
    async def generate_content_async(self, llm_request, stream=False):
        (HERE / "judging").touch()
        while (HERE / "hang").exists():
            await asyncio.sleep(0.05)
        async for response in super().generate_content_async(llm_request, stream):
            yield response


PROMPT = _Judge(model="prompt-judge", answer=lambda prompt, sample: judge_answers.auto(prompt))
"""
SESSIONS = [(USER["bedroom"], USER["kitchen"]), (USER["on"],), (USER["off"], USER["help"])]
TURNS = 5
QUIET = {"quiet_s": 0.5, "poll_s": 0.2}


def _judged(calls_per_day: int | None = None) -> dict[str, Any]:
    options = {"judge_model": "serve_judges:PROMPT", "num_samples": 1}
    rule: dict[str, Any] = {
        "name": "quality",
        "criteria": {"task_completion": {"threshold": 0.5, "judge_model_options": options}},
        "judge_imports": ["serve_judges"],
    }
    if calls_per_day is not None:
        rule["judge_budget"] = {"calls_per_day": calls_per_day}
    return rule


def _budgets(max_errors: float = 0.5) -> dict[str, Any]:
    return {
        "name": "budgets",
        "where": "user_text IS NOT NULL",
        "criteria": {"tool_error_rate": {"max": max_errors}, "latency": {"p95": 60_000}},
    }


@pytest.fixture
def judges(tmp_path: Path) -> dict[str, str]:
    """The environment that lets serve import the test's judges (this tree's src first)."""
    (tmp_path / "serve_judges.py").write_text(JUDGES)
    return {
        "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))
    }


@pytest.fixture
def exported() -> Iterator[list[BatchSpanProcessor]]:
    """Where `send` plugs the test process's spans: a real OTLP/HTTP exporter."""
    processors: list[BatchSpanProcessor] = []
    yield processors
    ROUTER.target = None
    for processor in processors:
        processor.shutdown()  # type: ignore[no-untyped-call]


def _rules(path: Path, *rules: dict[str, Any]) -> Path:
    path.write_text(json.dumps({**QUIET, "rules": list(rules)}))
    return path


def _serve(tmp_path: Path, rules: Path, env: dict[str, str], *args: str) -> Server:
    return start_server(tmp_path, "--rules", str(rules), *args, db=tmp_path / "online.duckdb",
                        token="", env=env)  # fmt: skip


def _send(server: Server, exported: list[BatchSpanProcessor], session_prefix: str) -> None:
    """The five turns, run by a real ADK agent, exported over OTLP/HTTP as an app would."""
    processor = BatchSpanProcessor(
        OTLPSpanExporter(endpoint=server.traces_url, timeout=10), schedule_delay_millis=100
    )
    exported.append(processor)
    ROUTER.target = processor
    with adk_settings("2", content=True):
        for number, turns in enumerate(SESSIONS):
            scenario_invocations(house_agent(), turns, session=f"{session_prefix}-{number}")
    assert processor.force_flush()
    ROUTER.target = None


def _scored(server: Server, rule: str) -> list[list[Any]]:
    """(turn, version, times scored) of the rule's ledger and of its scorings' turn rows."""
    return server.rows(
        "SELECT s.turn_id, l.rule_version, count(DISTINCT s.scoring_id) FROM scores s "
        "JOIN scorings g USING (scoring_id) "
        "LEFT JOIN online_scored l ON l.turn_id = s.turn_id AND l.rule = g.selection->>'rule' "
        "AND l.scoring_id = s.scoring_id "
        "WHERE g.selection->>'rule' = ? AND s.level = 'turn' GROUP BY ALL ORDER BY 1",
        [rule],
    )


def _wait_scored(server: Server, rule: str, turns: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ((count,),) = server.rows("SELECT count(*) FROM online_scored WHERE rule = ?", [rule])
        if count >= turns:
            return
        time.sleep(0.2)
    raise AssertionError(f"rule {rule}: {count} of {turns} turns scored; log:\n{server.stderr()}")


def _traffic_turns(server: Server) -> set[str]:
    return {row[0] for row in server.rows("SELECT turn_id FROM turns WHERE run_id IS NULL")}


def test_each_turn_is_scored_once_by_each_rule(
    tmp_path: Path, judges: dict[str, str], exported: list[BatchSpanProcessor]
) -> None:
    rules = _rules(tmp_path / "rules.json", _judged(), _budgets())
    server = _serve(tmp_path, rules, judges)
    try:
        _send(server, exported, "once")
        _wait_scored(server, "quality", TURNS)
        _wait_scored(server, "budgets", TURNS)
        time.sleep(1.5)  # several more polls: nothing is scored again
        turns = _traffic_turns(server)
        quality, budgets = _scored(server, "quality"), _scored(server, "budgets")
        judged = server.rows(
            "SELECT count(score), count(*) FROM scores s JOIN scorings g USING (scoring_id) "
            "WHERE g.selection->>'rule' = 'quality' AND metric = 'task_completion' "
            "AND level = 'turn'"
        )
        health = server.health().json()
        # The online passes take the same one scoring slot: a 429 while one runs.
        posted = when_scoring_is_free(
            lambda: server.post("/v1/score", json.dumps({"since_s": 3600}).encode(), JSON),
            60,
            "the online passes held the scoring slot for a minute",
        )
    finally:
        server.stop()

    assert len(turns) == TURNS
    assert {row[0] for row in quality} == turns == {row[0] for row in budgets}
    assert all(row[2] == 1 and row[1] is not None for row in quality + budgets), quality + budgets
    assert judged == [[TURNS, TURNS]]  # every turn judged, none not evaluated
    online = {rule["rule"]: rule for rule in health["online"]}
    assert online["quality"]["turns_scored"] == TURNS
    assert online["budgets"]["turns_scored"] == TURNS
    assert online["quality"]["judge_budget"] == "ok"
    assert posted.status == 200, posted.body  # the scoring endpoint still answers


def test_a_kill_mid_scoring_loses_and_doubles_nothing(
    tmp_path: Path, judges: dict[str, str], exported: list[BatchSpanProcessor]
) -> None:
    rules = _rules(tmp_path / "rules.json", _judged(), _budgets())
    (tmp_path / "hang").touch()
    server = _serve(tmp_path, rules, judges)
    try:
        _send(server, exported, "kill")
        deadline = time.monotonic() + 60
        while not (tmp_path / "judging").exists():  # a pass holds its transaction open
            assert time.monotonic() < deadline, server.stderr()
            time.sleep(0.05)
    finally:
        server.kill()  # SIGKILL
    (tmp_path / "hang").unlink()
    server = _serve(tmp_path, rules, judges)
    try:
        _wait_scored(server, "quality", TURNS)
        _wait_scored(server, "budgets", TURNS)
        time.sleep(1.5)
        turns = _traffic_turns(server)
        quality, budgets = _scored(server, "quality"), _scored(server, "budgets")
        ledger = server.rows(
            "SELECT rule, count(*), count(DISTINCT turn_id) FROM online_scored "
            "GROUP BY 1 ORDER BY 1"
        )
    finally:
        server.stop()

    assert len(turns) == TURNS
    assert {row[0] for row in quality} == turns == {row[0] for row in budgets}
    assert all(row[2] == 1 for row in quality + budgets), quality + budgets
    assert ledger == [["budgets", TURNS, TURNS], ["quality", TURNS, TURNS]]


def test_a_changed_rule_scores_only_the_turns_after_the_change(
    tmp_path: Path, judges: dict[str, str], exported: list[BatchSpanProcessor]
) -> None:
    rules = _rules(tmp_path / "rules.json", _budgets(0.5))
    server = _serve(tmp_path, rules, judges)
    try:
        _send(server, exported, "before")
        _wait_scored(server, "budgets", TURNS)
        before = _traffic_turns(server)
    finally:
        server.stop()
    _rules(rules, _budgets(0.25))  # a new version of the rule
    server = _serve(tmp_path, rules, judges)
    try:
        _send(server, exported, "after")
        _wait_scored(server, "budgets", 2 * TURNS)
        time.sleep(1.5)
        after = _traffic_turns(server) - before
        versions = server.rows(
            "SELECT rule_version, list(turn_id ORDER BY turn_id) FROM online_scored "
            "GROUP BY 1 ORDER BY min(scored_at)"
        )
        scored = _scored(server, "budgets")
    finally:
        server.stop()
    server = _serve(tmp_path, _rules(rules, _budgets(0.3)), judges, "--backfill")
    try:
        _wait_scored(server, "budgets", 4 * TURNS)
        backfilled = server.rows(
            "SELECT count(*) FROM online_scored o JOIN online_rules r USING (rule, rule_version) "
            "WHERE r.backfill"
        )
    finally:
        server.stop()

    assert len(before) == len(after) == TURNS
    assert [set(turns) for _, turns in versions] == [before, after]
    assert all(row[2] == 1 for row in scored)
    assert backfilled == [[2 * TURNS]]  # --backfill: the new version scores the stored turns


def test_the_daily_judge_budget_stops_judge_calls_and_says_so(
    tmp_path: Path, judges: dict[str, str], exported: list[BatchSpanProcessor]
) -> None:
    rules = _rules(tmp_path / "rules.json", _judged(calls_per_day=2), _budgets())
    server = _serve(tmp_path, rules, judges)
    try:
        _send(server, exported, "budget")
        _wait_scored(server, "quality", TURNS)
        _wait_scored(server, "budgets", TURNS)
        calls = server.rows("SELECT count(*) FROM judgements WHERE outcome = 'answered'")
        statuses = server.rows(
            "SELECT s.status, s.detail->>'reason', count(*) FROM scores s "
            "JOIN scorings g USING (scoring_id) WHERE g.selection->>'rule' = 'quality' "
            "AND metric = 'task_completion' AND level = 'turn' GROUP BY ALL ORDER BY 1"
        )
        budgets = server.rows(
            "SELECT count(score) FROM scores s JOIN scorings g USING (scoring_id) "
            "WHERE g.selection->>'rule' = 'budgets' AND metric = 'latency' AND level = 'turn'"
        )
        health = server.health().json()
    finally:
        server.stop()

    assert calls == [[2]]
    assert statuses[-1][0] == "passed" or statuses[0][0] == "passed", statuses
    not_evaluated = [row for row in statuses if row[0] == "not_evaluated"]
    assert not_evaluated == [["not_evaluated", "not judged: the judge budget was spent", TURNS - 2]]
    assert budgets == [[TURNS]]  # the reference-free rule goes on
    quality = next(rule for rule in health["online"] if rule["rule"] == "quality")
    assert quality["judge_budget"] == "the daily judge budget is spent"
    assert (
        "online rule 'quality': the daily judge budget is spent (2 calls a day)" in server.stderr()
    )


def test_a_where_no_turn_has_stops_serve_at_start_in_one_line(tmp_path: Path) -> None:
    rules = _rules(tmp_path / "rules.json", {**_budgets(), "where": "agent = 'shop'"})
    server = start_server(tmp_path, "--rules", str(rules), token="", wait=False)
    assert server.process.wait(60) == 2
    line = one_line_error(server.stderr())
    assert line.startswith(f"tracegrade: rules file '{rules}' rule 'budgets': where ")
    assert 'Referenced column "agent" not found' in line
