"""POST /v1/score is bounded: a time limit, one at a time on its own thread, cancelled when
its client goes away or the server stops, and never in the way of /v1/sql or shutdown."""

from __future__ import annotations

import json
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.paths import DATA

from .helpers import JSON, Reply, Server, start_server, when_scoring_is_free

SCORE_TIMEOUT_S = 12  # well past a cancellation, even on a loaded machine
# Runs for hours: the uncorrelated subquery is computed once, before any turn is selected.
ENDLESS: dict[str, object] = {
    "where": "(SELECT count(*) FROM range(1000000000) a, range(1000000) b "
    "WHERE a.range * b.range = 7) >= 0"
}


def load_traffic(server: Server) -> None:
    for name in ("adk_v2_a", "adk_v2_b", "adk_v2_c"):
        for line in (DATA / "traces" / f"{name}.otlp.jsonl").read_text().splitlines():
            assert server.post("/v1/traces", line.encode(), JSON).status == 200


@pytest.fixture
def scorer(workdir: Path) -> Iterator[Server]:
    server = start_server(workdir, "--score-timeout", str(SCORE_TIMEOUT_S))
    load_traffic(server)
    yield server
    server.stop()


def score(server: Server, request: dict[str, object], timeout: float = 120) -> Reply:
    return server.post("/v1/score", json.dumps(request).encode(), JSON, timeout=timeout)


def in_background(
    server: Server, request: dict[str, object]
) -> tuple[threading.Thread, list[Reply]]:
    replies: list[Reply] = []
    thread = threading.Thread(target=lambda: replies.append(score(server, request)))
    thread.start()
    time.sleep(1)  # let it start scoring
    return thread, replies


def scorings(server: Server) -> int:
    return int(server.rows("SELECT count(*) FROM scorings")[0][0])


def test_a_scoring_past_its_time_limit_is_stopped_and_leaves_nothing(scorer: Server) -> None:
    before = scorings(scorer)
    reply = score(scorer, ENDLESS)
    assert reply.status == 400, reply.body
    error = reply.json()["error"]
    assert f"ran longer than {SCORE_TIMEOUT_S} s" in error
    assert "nothing of it was stored" in error
    assert scorings(scorer) == before
    assert score(scorer, {"where": "true"}).status == 200  # the next one runs


def test_one_scoring_at_a_time_and_sql_is_never_starved(scorer: Server) -> None:
    running, replies = in_background(scorer, ENDLESS)
    try:
        second = score(scorer, ENDLESS, timeout=10)
        assert second.status == 429, second.body
        assert second.headers["retry-after"].isdigit()
        answered = scorer.post("/v1/sql", b'{"sql": "SELECT 1"}', JSON, timeout=10)
        assert (answered.status, answered.json()["rows"]) == (200, [[1]])
    finally:
        running.join(60)
    assert replies[0].status == 400


def test_a_client_going_away_cancels_its_scoring(scorer: Server) -> None:
    body = json.dumps(ENDLESS).encode()
    with socket.create_connection(("127.0.0.1", scorer.port), timeout=10) as sock:
        sock.sendall(
            b"POST /v1/score HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
            + f"content-length: {len(body)}\r\n\r\n".encode()
            + body
        )
        time.sleep(1)
    reply = when_scoring_is_free(
        lambda: score(scorer, {"where": "true"}),
        SCORE_TIMEOUT_S - 3,
        "the abandoned scoring ran on to its time limit",
    )
    assert reply.status == 200, reply.body


def test_sigterm_ends_the_server_during_a_long_scoring(workdir: Path) -> None:
    server = start_server(workdir)  # the default time limit: minutes
    load_traffic(server)
    running, replies = in_background(server, ENDLESS)
    assert server.stop(signal.SIGTERM, timeout=40) == 0
    running.join(30)
    assert replies[0].status == 400
    assert "the server is stopping" in replies[0].json()["error"]
    assert "stopped in" in server.stderr()
