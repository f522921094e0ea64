"""Judged metrics through `tracegrade serve`: POST /v1/score judges (with the request's judge
settings) and scores again from the cache; its time limit stops the judges' calls too, and
the answers already paid for are kept for the next scoring."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.adk_run import adk_settings
from tests.support.judging import USER, house_agent, scenario_invocations
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.store import SpanWriter

from .helpers import JSON, Reply, Server, start_server

SCORE_TIMEOUT_S = 6
ANSWERED_BEFORE_HANGING = 2
# Imported by the serve process, by the name the criteria give its judges.
JUDGES = f'''
import asyncio

from tracegrade.testing import ScriptedJudge, judge_answers

STARTED = [0]


def _answer(prompt, sample):
    return judge_answers.auto(prompt)


class _Hanging(ScriptedJudge):
    """Answers the first calls, then never (for an hour)."""

    async def generate_content_async(self, llm_request, stream=False):
        STARTED[0] += 1
        if STARTED[0] > {ANSWERED_BEFORE_HANGING}:
            await asyncio.sleep(3600)
        async for response in super().generate_content_async(llm_request, stream):
            yield response


PROMPT = ScriptedJudge(model="prompt-judge", answer=_answer)
HANGING = _Hanging(model="hanging-judge", answer=_answer)
'''
SESSIONS = [(USER["bedroom"], USER["kitchen"]), (USER["on"],), (USER["off"], USER["help"])]
TURNS = 5


@pytest.fixture
def traffic(
    captured: BlockingSpanProcessor, writer: SpanWriter, db_path: Path, tmp_path: Path
) -> dict[str, str]:
    """Five traffic turns with their messages in `db_path` (closed), and the environment
    that lets a serve process import the test's judges."""
    with adk_settings("2", content=True):
        for number, turns in enumerate(SESSIONS):
            scenario_invocations(house_agent(), turns, session=f"session-{number}")
    assert captured.force_flush()
    writer.close()
    (tmp_path / "serve_judges.py").write_text(JUDGES)
    return {"PYTHONPATH": str(tmp_path)}


def _request(judge: str) -> bytes:
    options = {"judge_model": f"serve_judges:{judge}", "num_samples": 1}
    criteria = {"task_completion": {"threshold": 0.5, "judge_model_options": options}}
    config = {"criteria": {}, "tracegrade": {"criteria": criteria}}
    request = {"since_s": 86400, "config": config, "judge": {"concurrency": 8}}
    return json.dumps(request).encode()


def _score(server: Server, judge: str) -> Reply:
    return server.post("/v1/score", _request(judge), JSON, timeout=120)


def test_judged_metrics_score_through_serve_and_again_from_the_cache(
    traffic: dict[str, str], db_path: Path, tmp_path: Path
) -> None:
    server = start_server(tmp_path, db=db_path, env=traffic)
    try:
        first, second = _score(server, "PROMPT"), _score(server, "PROMPT")
        assert (first.status, second.status) == (200, 200), (first.body, second.body)
        usage = server.rows("SELECT scoring_id, judgements, calls, cached FROM judge_usage")
        by_scoring = {row[0]: row[1:] for row in usage}
        assert by_scoring[first.json()["scoring_id"]] == [TURNS, TURNS, 0]
        assert by_scoring[second.json()["scoring_id"]] == [TURNS, 0, TURNS]
        scored = server.rows(
            "SELECT count(score) FROM scores WHERE scoring_id = ? AND metric = 'task_completion' "
            "AND level = 'turn'",
            [second.json()["scoring_id"]],
        )
        assert scored == [[TURNS]]
    finally:
        server.stop()


def test_the_time_limit_stops_the_judges_and_keeps_what_was_paid_for(
    traffic: dict[str, str], db_path: Path, tmp_path: Path
) -> None:
    server = start_server(
        tmp_path, "--score-timeout", str(SCORE_TIMEOUT_S), db=db_path, env=traffic
    )
    try:
        reply = _score(server, "HANGING")  # without the stop, it would wait an hour
        assert reply.status == 400, reply.body
        assert f"ran longer than {SCORE_TIMEOUT_S} s" in reply.json()["error"]
        assert server.rows("SELECT count(*) FROM scorings") == [[0]]
        kept = server.rows("SELECT count(*) FROM judgements WHERE outcome = 'answered'")
        assert kept == [[ANSWERED_BEFORE_HANGING]]
        assert server.health().status == 200
    finally:
        server.stop()
