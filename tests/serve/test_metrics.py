"""GET /metrics: serve's figures as Prometheus scrapes them (bearer token), read back with
prometheus_client's own parser, moving as spans arrive, are refused and are scored."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client.openmetrics.parser import (
    text_string_to_metric_families as openmetrics_families,
)
from prometheus_client.parser import text_string_to_metric_families

from tests.support.cli import invoke, one_line_error
from tests.support.serve_app import ServeApp
from tests.support.span_factory import adk_like_spans
from tests.support.tiers import costly
from tracegrade.exit_codes import ExitCode
from tracegrade.server import metrics

from .helpers import JSON, PROTOBUF, Server, protobuf

TOKEN = "scrape-me-0123456789"
BEARER = {"authorization": f"Bearer {TOKEN}"}
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


@pytest.fixture
def app(tmp_path: Path) -> Iterator[ServeApp]:
    served = ServeApp(tmp_path / "serve.duckdb", token=TOKEN)
    yield served
    served.close()


def scrape(app: ServeApp) -> Samples:
    reply = app.request("GET", "/metrics", headers=BEARER)
    assert reply.status == 200, reply.body
    assert reply.headers["content-type"].startswith("text/plain; version=")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(reply.body.decode())
        for sample in family.samples
    }


def _now_spans(turns: int, seed: int) -> bytes:
    return protobuf(adk_like_spans(turns, seed=seed, start_ns=time.time_ns() - 60 * 10**9))


def test_the_token_is_required_as_prometheus_sends_it(app: ServeApp) -> None:
    assert app.request("GET", "/metrics").status == 401
    wrong = app.request("GET", "/metrics", headers={"authorization": "Bearer nope"})
    assert (wrong.status, wrong.headers["www-authenticate"]) == (401, 'Bearer realm="tracegrade"')
    assert app.request("POST", "/metrics", b"", BEARER).status == 405
    # A browser page of another site is refused as on every endpoint.
    cross = app.request("GET", "/metrics", headers={**BEARER, "origin": "https://evil.example"})
    assert cross.status == 403


def test_ingest_figures_move_after_spans_and_refusals(app: ServeApp) -> None:
    before = scrape(app)
    assert before[("tracegrade_ingest_spans_stored_total", ())] == 0
    assert before[("tracegrade_commit_seconds_count", ())] == 0

    assert app.post("/v1/traces", _now_spans(3, seed=41), PROTOBUF).status == 200
    again = app.post("/v1/traces", _now_spans(3, seed=41), PROTOBUF)  # the same spans again
    assert again.status == 200
    unauthorised = app.request("POST", "/v1/traces", _now_spans(1, seed=42), PROTOBUF)
    assert unauthorised.status == 401
    wrong_type = app.post("/v1/traces", b"{}", {"content-type": "text/plain"})
    assert wrong_type.status == 415

    after = scrape(app)
    spans = 3 * 5  # each turn: workflow, agent, two model calls, one tool call
    assert after[("tracegrade_ingest_spans_stored_total", ())] == spans
    assert after[("tracegrade_ingest_spans_duplicate_total", ())] == spans
    assert after[("tracegrade_ingest_requests_total", ())] == 4
    refused = "tracegrade_ingest_refused_requests_total"
    assert after[(refused, (("status", "401"),))] == 1
    assert after[(refused, (("status", "415"),))] == 1
    commits = after[("tracegrade_commit_seconds_count", ())]
    assert commits == after[("tracegrade_commit_seconds_bucket", (("le", "+Inf"),))] >= 1
    assert after[("tracegrade_commit_seconds_sum", ())] > 0
    assert after[("tracegrade_queue_spans", ())] == 0
    assert after[("tracegrade_database_bytes", ())] > 0


@costly
def test_scores_per_rule_and_metric(app: ServeApp, monkeypatch: pytest.MonkeyPatch) -> None:
    assert app.post("/v1/traces", _now_spans(4, seed=43), PROTOBUF).status == 200
    assert not any(name.startswith("tracegrade_score_") for name, _ in scrape(app))
    criteria = {"criteria": {"tool_call_count": {"max": 0}, "token_usage": {"max": 10_000}}}
    request = {"since_s": 3600, "config": criteria}
    scored = app.post("/v1/score", json.dumps(request).encode(), JSON)
    assert scored.status == 200, scored.body
    # The first scrape cached the (empty) scores: they show once the cache is out of date.
    assert not any(name.startswith("tracegrade_score_") for name, _ in scrape(app))
    monkeypatch.setattr(metrics, "SCORES_TTL_S", 0.0)
    found = scrape(app)
    batch = (("metric", "tool_call_count"), ("rule", ""))
    assert found[("tracegrade_score_turns", batch)] == 4
    assert found[("tracegrade_score_breaches", batch)] == 4  # one tool call a turn, over 0
    assert found[("tracegrade_score_mean", batch)] == 1.0
    tokens = (("metric", "token_usage"), ("rule", ""))
    assert found[("tracegrade_score_breaches", tokens)] == 0

    # A scoring an online rule made is labelled with its rule (selection.rule, as serve's
    # rules tag theirs).
    scored = app.post("/v1/score", json.dumps(request).encode(), JSON)
    assert scored.status == 200, scored.body
    # The SQL endpoint is read-only: the tag goes through serve's own writer connection.
    connection = app._writer.connection  # the test stands in for a rule
    connection.execute(
        "UPDATE scorings SET selection = json_merge_patch(selection, ?) WHERE scoring_id = ?",
        [json.dumps({"rule": "checkout"}), json.loads(scored.body)["scoring_id"]],
    )
    found = scrape(app)
    rule = (("metric", "tool_call_count"), ("rule", "checkout"))
    assert found[("tracegrade_score_breaches", rule)] == 4
    assert found[("tracegrade_score_turns", batch)] == 4


def test_openmetrics_when_asked(app: ServeApp) -> None:
    accept = {**BEARER, "accept": "application/openmetrics-text; version=1.0.0"}
    reply = app.request("GET", "/metrics", headers=accept)
    assert reply.headers["content-type"].startswith("application/openmetrics-text")
    parsed = openmetrics_families(reply.body.decode())  # type: ignore[no-untyped-call]
    names = {family.name for family in parsed}
    assert {"tracegrade_ingest_spans_stored", "tracegrade_commit_seconds"} <= names


def test_an_empty_sample_through_serve_is_one_line_and_exit_6(server: Server) -> None:
    result = invoke("score", "--server", server.url, "--since", "90m", "--sample", "0.000001")
    assert result.exit_code == ExitCode.NOTHING_SELECTED
    assert one_line_error(result.stderr) == (
        "tracegrade: nothing scored: traffic of the last 90m sampled at 0.0001% of trace ids "
        "selects no stored turn (widen the window, raise the sample)"
    )
    reply = server.post("/v1/score", json.dumps({"since_s": 60, "sample": 0.000001}).encode(), JSON)
    assert reply.status == 422
    assert reply.json()["reason"] == "nothing_selected"


def test_traffic_scorings_listed_printed_and_compared_through_serve(server: Server) -> None:
    resource = {"service.name": "shop", "service.version": "2.0.0"}
    start = time.time_ns() - 10**9
    spans = adk_like_spans(3, seed=44, resource=resource, start_ns=start)
    assert server.post("/v1/traces", protobuf(spans), PROTOBUF).status == 200
    # The server is the session's: its other traffic is left out by the turns' start times.
    mine = f"start_ns BETWEEN {start} AND {start + 10**9}"
    scored = invoke("score", "--server", server.url, "--since", "10m", "--where", mine)
    assert scored.exit_code == 0, scored.output
    said = " ".join(scored.stdout.split())  # the selection wraps at the terminal's width
    assert f"traffic of the last 10m where {mine} · 3 turns scored" in said
    assert "shop 2.0.0" in scored.stdout
    listed = invoke("runs", "--traffic", "--json", "--server", server.url)
    scoring = json.loads(listed.stdout)[0]["scoring_id"]
    again = invoke("report", scoring, "--server", server.url)
    assert (again.exit_code, again.stdout) == (scored.exit_code, scored.stdout)
    same = invoke("diff", scoring, scoring, "--server", server.url)
    assert same.exit_code == 0, same.output
    assert same.stdout.startswith(f"Traffic diff {scoring} → {scoring}\n")
