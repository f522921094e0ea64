"""What a web page can make a browser send to a serve without a token is refused, as the
browser sends it: a `text/plain` POST (a `<form enctype="text/plain">`, a `no-cors` fetch),
with or without its Origin, and anything under a DNS-rebinding Host; the clients that are
not browsers (the CLI, the OTel exporters) and the server's own pages still get in."""

from __future__ import annotations

import json
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace.export import SpanExportResult

from tests.support.paths import DATA
from tests.support.span_factory import adk_like_spans
from tracegrade.server.crosssite import CrossSiteGuard, allowed_names
from tracegrade.server.messages import RequestHead

from .helpers import JSON, TRACEGRADE, Server, request, start_server

SQL = json.dumps({"sql": "SELECT trace_id, name FROM spans"}).encode()
SCORE = b'{"where": "true"}'  # what a no-cors fetch sends as its text/plain body
EVIL = "https://evil.example"
FORM = {  # Chromium's headers on a cross-site form submission
    "content-type": "text/plain",
    "origin": EVIL,
    "sec-fetch-site": "cross-site",
    "sec-fetch-mode": "navigate",
    "sec-fetch-dest": "document",
}
NO_CORS = {  # ... and on fetch(url, {method: "POST", mode: "no-cors", body: "..."})
    "content-type": "text/plain;charset=UTF-8",
    "origin": EVIL,
    "sec-fetch-site": "cross-site",
    "sec-fetch-mode": "no-cors",
    "sec-fetch-dest": "empty",
}


@pytest.fixture(scope="module")
def named(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server with traffic to score, reached by two more names."""
    folder = tmp_path_factory.mktemp("named")
    args = ["--grpc-port", "0", "--allowed-host", "tracegrade", "--allowed-host", "Lab.Example"]
    server = start_server(folder, *args)
    for name in ("adk_v2_a", "adk_v2_b"):
        for line in (DATA / "traces" / f"{name}.otlp.jsonl").read_text().splitlines():
            assert server.post("/v1/traces", line.encode(), JSON).status == 200
    yield server
    server.stop()


def scorings(server: Server) -> int:
    count: int = server.rows("SELECT count(*) FROM scorings")[0][0]
    return count


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"content-type": "text/plain"}, 415),  # a browser that sent no Origin
        (FORM, 403),
        (NO_CORS, 403),
        ({**JSON, "origin": EVIL}, 403),
        ({**JSON, "origin": "null"}, 403),  # a sandboxed frame, a file
        ({**JSON, "sec-fetch-site": "cross-site", "sec-fetch-mode": "cors"}, 403),
    ],
    ids=["text-plain", "form", "no-cors-fetch", "json-foreign-origin", "null-origin",
         "cross-site"],
)  # fmt: skip
def test_a_cross_site_score_or_query_is_refused(
    named: Server, headers: dict[str, str], status: int
) -> None:
    before = scorings(named)
    for path, body in (("/v1/score", SCORE), ("/v1/sql", SQL)):
        reply = named.post(path, body, headers)
        assert reply.status == status, (path, reply.body)
        assert reply.json()["error"]
    assert scorings(named) == before


def test_the_same_requests_from_a_client_or_the_servers_own_origin_are_answered(
    named: Server,
) -> None:
    """The control: these bodies are accepted as JSON, with no Origin or the server's own."""
    before = scorings(named)
    own = {**JSON, "origin": named.url, "sec-fetch-site": "same-origin"}
    reply = named.post("/v1/score", SCORE, own, timeout=120)
    assert reply.status == 200, reply.body
    assert scorings(named) == before + 1
    for headers in (JSON, own, {"content-type": "application/json; charset=utf-8"}):
        assert named.post("/v1/sql", SQL, headers).status == 200


def test_a_rebinding_host_is_refused_pages_and_sql(server: Server) -> None:
    rebound = {"host": f"rebind.example:{server.port}"}
    page = request(server.port, "GET", "/", None, rebound, 10)
    assert page.status == 421
    assert page.headers["content-type"].startswith("text/html")
    assert b"--allowed-host rebind.example" in page.body
    # Same-origin to the rebinding page, so it could read the answer: JSON, its own Origin.
    own = {**rebound, **JSON, "origin": f"http://rebind.example:{server.port}"}
    sql = request(server.port, "POST", "/v1/sql", SQL, own, 10)
    assert sql.status == 421
    assert b"trace_id" not in sql.body
    assert request(server.port, "GET", "/health", None, rebound, 10).status == 421


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "localhost", "LOCALHOST", "[::1]", "127.0.0.1:{port}", "localhost:{port}"]
)
def test_the_loopback_names_are_answered(server: Server, host: str) -> None:
    headers = {**JSON, "host": host.format(port=server.port)}
    assert request(server.port, "POST", "/v1/sql", SQL, headers, 10).status == 200


def test_a_link_from_another_site_opens_a_page_but_nothing_else_gets_through(
    server: Server,
) -> None:
    followed = {"sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate"}
    assert request(server.port, "GET", "/", None, followed, 30).status == 200
    embedded = {"sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors"}
    assert request(server.port, "GET", "/", None, embedded, 30).status == 403
    cors = {"origin": EVIL, "sec-fetch-site": "cross-site", "sec-fetch-mode": "cors"}
    assert request(server.port, "GET", "/health", None, cors, 10).status == 403


def test_traces_from_a_browser_are_refused_but_exporters_get_in(server: Server) -> None:
    form = server.post("/v1/traces", b"{}", FORM)
    assert form.status == 403
    assert "evil.example" in form.json()["message"]  # OTLP's error, a google.rpc.Status
    spans = adk_like_spans(1, seed=140)
    assert OTLPSpanExporter(endpoint=server.traces_url).export(spans) is SpanExportResult.SUCCESS
    via_localhost = f"http://localhost:{server.port}/v1/traces"
    assert OTLPSpanExporter(endpoint=via_localhost).export(spans) is SpanExportResult.SUCCESS


def test_the_cli_queries_through_the_server(server: Server, workdir: Path) -> None:
    for url in (server.url, f"http://localhost:{server.port}"):
        done = subprocess.run(
            [TRACEGRADE, "sql", "--server", url, "--db", str(workdir / "x.duckdb"), "SELECT 42"],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "42" in done.stdout


@pytest.mark.parametrize(
    ("host", "status"),
    [("tracegrade:{port}", 200), ("lab.example", 200), ("rebind.example:{port}", 421),
     ("tracegrade.evil.example", 421), ("10.1.2.3:{port}", 200)],
)  # fmt: skip
def test_allowed_host_adds_names(named: Server, host: str, status: int) -> None:
    headers = {**JSON, "host": host.format(port=named.port)}
    assert request(named.port, "POST", "/v1/sql", SQL, headers, 10).status == status


def sent(host: str, scheme: str = "http", **headers: str) -> RequestHead:
    named = {"host": host, **{k.replace("_", "-"): v for k, v in headers.items()}}
    return RequestHead("POST", "/v1/sql", named, scheme=scheme)


@pytest.mark.parametrize(
    ("request_head", "status"),
    [
        (sent("127.0.0.1:4318", origin="http://127.0.0.1:4318"), None),
        (sent("[::1]:4318", origin="http://[::1]:4318"), None),
        (sent("localhost", origin="http://localhost"), None),
        (sent("localhost:80", origin="http://localhost"), None),
        (sent("127.0.0.1:443", "https", origin="https://127.0.0.1"), None),
        (sent("localhost:4318", origin="http://localhost:4319"), 403),  # same site, other port
        (sent("localhost:4318", origin="https://localhost:4318"), 403),
        (sent("localhost:4318", sec_fetch_site="same-site"), None),
        (sent("", origin="http://localhost:4318"), 403),
        (sent("localhost.:4318"), 421),
        (sent("127.0.0.1.rebind.example:4318"), 421),
    ],
)
def test_the_guard(request_head: RequestHead, status: int | None) -> None:
    guard = CrossSiteGuard.for_server("127.0.0.1", (), None)
    refusal = guard.refusal(request_head)
    assert (refusal.status if refusal else None) == status


def test_with_a_token_any_host_is_answered_but_not_a_foreign_origin() -> None:
    guard = CrossSiteGuard.for_server("0.0.0.0", (), "a-token-of-sixteen")
    assert guard.refusal(sent("tracegrade:4318")) is None  # a compose service name
    refusal = guard.refusal(sent("tracegrade:4318", origin=EVIL))
    assert refusal is not None
    assert refusal.status == 403


def test_the_names_answered_without_a_token() -> None:
    assert allowed_names("127.0.0.1", ()) == {"localhost"}
    assert allowed_names("box.lan", ["Other:4318"]) == {"localhost", "box.lan", "other"}
    assert socket.gethostname().lower() in allowed_names("0.0.0.0", ())
