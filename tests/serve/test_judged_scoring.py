"""Judged metrics through `tracegrade serve`: POST /v1/score judges (with the request's judge
settings) and scores again from the cache; a scoring stopped (its client gone, its time
limit) stops its judges' calls too, and the answers already paid for are kept."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest

from tests.support.adk_run import adk_settings
from tests.support.judging import USER, house_agent, scenario_invocations
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.store import SpanWriter

from .helpers import JSON, Reply, Server, start_server, when_scoring_is_free

ANSWERED_FIRST = 2
# Imported by the serve process, by the name the criteria give its judges.
JUDGES = f'''
import asyncio
import pathlib

from tracegrade.testing import ScriptedJudge, judge_answers

STARTED, ANSWERED = [0], [0]
HANGING_MARK = pathlib.Path(__file__).with_name("hanging")


def _answer(prompt, sample):
    return judge_answers.auto(prompt)


class _Hanging(ScriptedJudge):
    """Answers {ANSWERED_FIRST} calls; the next three never answer (for an hour) once those two
    are taken; later calls answer again."""

    async def generate_content_async(self, llm_request, stream=False):
        STARTED[0] += 1
        if {ANSWERED_FIRST} < STARTED[0] <= 5:
            while ANSWERED[0] < {ANSWERED_FIRST}:
                await asyncio.sleep(0.01)
            HANGING_MARK.touch()
            await asyncio.sleep(3600)
        try:
            async for response in super().generate_content_async(llm_request, stream):
                yield response
        finally:
            ANSWERED[0] += 1


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


def _request(judge: str, imports: list[str] | None = None) -> bytes:
    options = {"judge_model": judge if ":" in judge else f"serve_judges:{judge}", "num_samples": 1}
    criteria = {"task_completion": {"threshold": 0.5, "judge_model_options": options}}
    config = {"criteria": {}, "tracegrade": {"criteria": criteria, "judge_imports": imports or []}}
    request = {"since_s": 86400, "config": config, "judge": {"concurrency": 8}}
    return json.dumps(request).encode()


def _score(server: Server, judge: str, imports: list[str] | None = None) -> Reply:
    return server.post("/v1/score", _request(judge, imports), JSON, timeout=120)


def test_judged_metrics_score_through_serve_and_again_from_the_cache(
    traffic: dict[str, str], db_path: Path, tmp_path: Path
) -> None:
    server = start_server(tmp_path, "--judge-import", "serve_judges", db=db_path, env=traffic)
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


def test_a_stopped_scoring_stops_its_judges_and_keeps_what_was_paid_for(
    traffic: dict[str, str], db_path: Path, tmp_path: Path
) -> None:
    """The client goes away while a judge hangs (serve's time limit stops a scoring the
    same way): the judges' calls end, and the next scoring reuses the answers paid for."""
    server = start_server(tmp_path, "--judge-import", "serve_judges", db=db_path, env=traffic)
    try:
        body = _request("HANGING")
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            sock.sendall(
                b"POST /v1/score HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
                + f"content-length: {len(body)}\r\n\r\n".encode()
                + body
            )
            _wait_for(tmp_path / "hanging")
        # Unstopped, its judge would hold the one scoring slot for an hour (429 meanwhile).
        reply = when_scoring_is_free(
            lambda: _score(server, "HANGING"), 60, "the abandoned scoring's judges ran on"
        )
        assert reply.status == 200, reply.body
        usage = server.rows(
            "SELECT judgements, cached, calls FROM judge_usage WHERE scoring_id = ?",
            [reply.json()["scoring_id"]],
        )
        assert usage == [[TURNS, ANSWERED_FIRST, TURNS - ANSWERED_FIRST]]
        assert server.rows("SELECT count(*) FROM scorings") == [[1]]
    finally:
        server.stop()


def _wait_for(path: Path) -> None:
    deadline = time.monotonic() + 60
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.05)


def test_a_request_never_makes_the_server_import_a_module(
    traffic: dict[str, str], db_path: Path, tmp_path: Path
) -> None:
    """Judges named as module:attr, and judge_imports (names or .py files), would run code a
    client chose: only what `serve --judge-import` imported at start can be named."""
    planted = tmp_path / "planted.py"
    planted.write_text(f"import pathlib\npathlib.Path({str(tmp_path / 'ran')!r}).touch()\n")
    server = start_server(tmp_path, db=db_path, env=traffic)  # no --judge-import
    try:
        asked = [
            _score(server, "PROMPT"),  # serve_judges:PROMPT, on the server's path, not imported
            _score(server, "planted:JUDGE"),
            _score(server, "tracegrade.testing:ScriptedJudge", imports=["planted"]),
            _score(server, "tracegrade.testing:ScriptedJudge", imports=[str(planted)]),
        ]
        for reply in asked:
            assert reply.status == 400, reply.body
            assert "the server imports no module a request names" in reply.body.decode()
        assert not (tmp_path / "ran").exists()
        assert server.rows("SELECT count(*) FROM judgements") == [[0]]
        assert server.health().status == 200
    finally:
        server.stop()
