"""Requests that once crashed a handler (500) get a 4xx with the reason (and serve goes on
answering): the application in process, as the answers need no socket."""

from __future__ import annotations

import json

import pytest

from tests.support.serve_app import ServeApp

from .helpers import JSON

DEEP = 100_000


@pytest.mark.parametrize(
    ("path", "body", "status", "reason"),
    [
        ("/v1/sql", {"sql": "UPDATE EXTENSIONS"}, 403, "only SELECT"),
        ("/v1/sql", {"sql": "SELECT '\ud800'"}, 400, "not valid text"),
        ("/v1/sql", b'{"sql": ' + b"[" * DEEP + b"]" * DEEP + b"}", 400, "nested too deeply"),
        ("/v1/score", b"[" * DEEP + b"]" * DEEP, 400, "nested too deeply"),
        ("/v1/score", {"where": "user_text = = 'x'"}, 400, "not one SQL condition"),
        ("/v1/score", {"where": "no_such_column > 1"}, 400, "no_such_column"),
        ("/v1/score", {"since_s": "abc"}, 400, "since_s 'abc': must be a number of seconds"),
    ],
    ids=["update-extensions", "lone-surrogate", "deep-sql", "deep-score", "bad-where",
         "unknown-column", "since-abc"],
)  # fmt: skip
def test_a_4xx_with_the_reason(
    serve_app: ServeApp, path: str, body: object, status: int, reason: str
) -> None:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    reply = serve_app.post(path, data, JSON)
    assert reply.status == status, reply.body[:300]
    assert reason in reply.json()["error"]
    assert serve_app.health().status == 200
    assert serve_app.rows("SELECT 1 AS one") == [[1]]
