"""The live pages of a real `tracegrade serve` process: byte for byte the renderer's pages,
every link leads to a page, a token guards them (a browser signs in once with ?token= and
keeps a cookie that opens the pages only), and bad addresses get a 4xx page saying why."""

from __future__ import annotations

import html
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.report.helpers import BASE_RUN, NEXT_RUN
from tests.report.pages.hostile import CASE_ID, make_hostile_run
from tests.serve.helpers import Reply, Server, request, start_server
from tests.support.tiers import costly
from tracegrade.report.diff.build import diff_runs
from tracegrade.report.pages import render_run_page, run_live, runs_live
from tracegrade.report.pages.links import LiveLinks
from tracegrade.report.pages.run import PageLimits, build_run_page
from tracegrade.server.cancel import Cancellation
from tracegrade.server.messages import RequestHead
from tracegrade.server.pages import PageAuth
from tracegrade.server.sql import ReadOnlyQueries, SqlFailed, SqlRefused
from tracegrade.store import LocalReader, connect
from tracegrade.store.readonly import lock_down

TOKEN = "page-token-for-tests-1"
LINK = re.compile(r'href="(/[^"#]*)"')


@pytest.fixture(scope="module")
def server(runs_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("live")
    db = folder / "runs.duckdb"
    shutil.copy(runs_db, db)  # serve opens its database for writing: a copy of the fixture
    running = start_server(folder, "--grpc-port", "0", db=db, token=TOKEN)
    yield running
    running.stop()


def _get(server: Server, path: str, headers: dict[str, str] | None = None) -> Reply:
    return request(server.port, "GET", path, None, headers or {}, 120)


def _page(server: Server, path: str) -> Reply:
    reply = _get(server, path, server.auth)
    assert reply.status == 200, (path, reply.body[-500:])
    assert reply.headers["content-type"] == "text/html; charset=utf-8"
    return reply


def test_live_pages_are_the_renderer_s_pages(
    server: Server, reader: LocalReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The renderer told which runs are signed under the same token as the server (the
    # fixture's runs, loaded from a file, are not: both pages mark them).
    monkeypatch.setenv("TRACEGRADE_TOKEN", TOKEN)
    home = _page(server, "/").body
    assert home == runs_live(reader).encode()
    assert home.count(b">unsigned</span>") == 2
    live = _page(server, f"/runs/{NEXT_RUN}?baseline={BASE_RUN}").body
    assert live == run_live(reader, NEXT_RUN, BASE_RUN).encode()
    assert b"regressed" in live or b"fixed" in live or b"changed" in live


def test_every_link_of_the_live_pages_leads_to_a_page(server: Server) -> None:
    """Runs, runs' and cases' pages all; three turn pages (~1 s each under load: the turns
    view is rebuilt per query), which are one template with other ids."""
    seen: set[str] = set()
    turns: set[str] = set()
    waiting = ["/"]
    while waiting:
        path = waiting.pop()
        seen.add(path)
        text = _page(server, path).body.decode()
        links = {unescaped(p) for p in LINK.findall(text)}
        turns |= {p for p in links if p.startswith("/turns/")}
        waiting += sorted(links - turns - seen - set(waiting))
    assert {f"/runs/{BASE_RUN}", f"/runs/{NEXT_RUN}"} <= seen
    assert any("/cases/" in p for p in seen)
    # No traffic in the fixture: its traffic pages are the (empty) traces list and monitor.
    sections = {p.split("/")[1].split("?")[0] for p in seen - {"/"}}
    assert sections == {"runs", "traces", "monitor"}
    assert len(turns) >= 3
    for path in sorted(turns)[:3]:
        assert b"waterfall" in _page(server, path).body


def unescaped(href: str) -> str:
    return href.replace("&amp;", "&")


def test_a_browser_signs_in_once_with_the_token(server: Server) -> None:
    path = f"/runs/{NEXT_RUN}"
    for headers in (
        {},
        {"authorization": "Bearer wrong"},
        {"cookie": "tracegrade_pages=x"},
        {"cookie": f"{PageAuth(TOKEN).cookie_name}=x"},
    ):
        refused = _get(server, path, headers)
        assert refused.status == 401, headers
        assert b"?token=" in refused.body
    assert _get(server, f"{path}?token=wrong").status == 401
    signed_in = _get(server, f"{path}?offset=0&token={TOKEN}")
    assert signed_in.status == 303
    assert signed_in.headers["location"] == f"{path}?offset=0"  # the token leaves the address
    cookie = signed_in.headers["set-cookie"]
    assert {"HttpOnly", "SameSite=Strict", "Path=/"} <= {p.strip() for p in cookie.split(";")}
    assert TOKEN not in cookie  # an HMAC of the token, not the token
    jar = {"cookie": cookie.split(";")[0]}
    assert _get(server, f"{path}?offset=0", jar).status == 200
    assert _get(server, f"{path}?offset=0", server.auth).status == 200  # scripts: the header
    # The cookie opens the pages only: SQL, scoring and ingest still want the bearer token.
    sql = b'{"sql": "SELECT 1"}'
    headers = {**jar, "content-type": "application/json"}
    assert request(server.port, "POST", "/v1/sql", sql, headers, 30).status == 401
    assert server.post("/v1/sql", sql, {"content-type": "application/json"}).status == 200


def test_pages_carry_their_security_headers(server: Server) -> None:
    reply = _page(server, "/")
    assert reply.headers["content-security-policy"] == "frame-ancestors 'none'"
    assert reply.headers["x-content-type-options"] == "nosniff"
    assert reply.headers["referrer-policy"] == "no-referrer"
    assert reply.headers["cache-control"] == "no-store"
    assert "default-src 'none'" in html.unescape(reply.body.decode())  # its own CSP, as a file


@pytest.mark.parametrize(
    ("path", "status", "says"),
    [
        ("/runs/nope", 404, "nope"),
        ("/turns/nope", 404, "no turn"),
        ("/traffic/nope", 404, "no scoring"),
        (f"/runs/{NEXT_RUN}/cases/nope/nope", 404, "has no case"),
        ("/runs/a/b", 404, "no page /runs/a/b"),
        (f"/runs/{NEXT_RUN}?offset=-1", 400, "offset must be a whole number"),
    ],
)
def test_a_bad_address_gets_a_page_saying_why(
    server: Server, path: str, status: int, says: str
) -> None:
    reply = _get(server, path, server.auth)
    assert reply.status == status
    assert reply.headers["content-type"].startswith("text/html")
    assert says in reply.body.decode()


def test_pages_take_only_get(server: Server) -> None:
    reply = request(server.port, "POST", "/", b"", server.auth, 30)
    assert reply.status == 405
    assert reply.headers["allow"] == "GET, HEAD"


def test_ids_with_slashes_and_markup_reach_their_page(tmp_path: Path) -> None:
    db = make_hostile_run(tmp_path)
    connection = connect(db, read_only=True)
    try:
        (run_id, eval_set_id), *_ = connection.execute(
            "SELECT DISTINCT run_id, eval_set_id FROM turns WHERE run_id IS NOT NULL"
        ).fetchall()
    finally:
        connection.close()
    server = start_server(tmp_path, "--grpc-port", "0", db=db, token="")
    try:
        path = LiveLinks().case(run_id, eval_set_id, CASE_ID)
        assert "%3Cb%3E" in path  # the id's markup stays in its one path segment
        text = _get(server, path).body.decode()
        assert "case&lt;b&gt;1&lt;/b&gt;" in text
        assert "<b>1</b>" not in text
    finally:
        server.stop()


@costly
def test_page_queries_pass_the_sql_guard(runs_db: Path, tmp_path: Path) -> None:
    db = tmp_path / "runs.duckdb"
    shutil.copy(runs_db, db)
    connection = connect(db)
    lock_down(connection)
    queries = ReadOnlyQueries(connection, timeout_s=30, max_rows=3, max_bytes=1 << 20)
    far = time.monotonic() + 60
    try:
        columns, rows = queries.rows("SELECT ? AS x", [1], far, Cancellation())
        assert (columns, rows) == (["x"], [(1,)])
        with pytest.raises(SqlRefused):
            queries.rows("DELETE FROM spans", [], far, Cancellation())
        with pytest.raises(SqlFailed, match="over 3 rows"):
            queries.rows("SELECT * FROM range(10)", [], far, Cancellation())
    finally:
        connection.close()


def test_the_next_page_of_a_comparison_keeps_its_baseline(reader: LocalReader) -> None:
    diff = diff_runs(reader, BASE_RUN, NEXT_RUN)
    limits = PageLimits(cases=1)
    page = build_run_page(reader, None, NEXT_RUN, diff, limits, waterfalls=False)

    text = render_run_page(page, embed=False)

    assert page.cases_total > 1
    assert f'href="?offset=1&amp;baseline={BASE_RUN}">next page' in text


def test_two_servers_on_one_host_keep_their_own_cookies() -> None:
    """Browsers keep cookies per host, not per port: a sign-in to one server must not
    replace the other's cookie, nor open the other's pages."""
    first, second = PageAuth("token-of-shard-0"), PageAuth("token-of-shard-1")
    path = f"/runs/{NEXT_RUN}"
    cookies = [
        _signed_in_cookie(auth, RequestHead("GET", path, {}, path, f"token={token}"))
        for auth, token in ((first, "token-of-shard-0"), (second, "token-of-shard-1"))
    ]
    assert cookies[0].split("=")[0] != cookies[1].split("=")[0]
    both = RequestHead("GET", path, {"cookie": "; ".join(cookies)}, path)
    assert first.check(both, bearer_ok=False) is None
    assert second.check(both, bearer_ok=False) is None
    only_first = RequestHead("GET", path, {"cookie": cookies[0]}, path)
    refused = second.check(only_first, bearer_ok=False)
    assert refused is not None
    assert refused.status == 401


def _signed_in_cookie(auth: PageAuth, head: RequestHead) -> str:
    response = auth.check(head, bearer_ok=False)
    assert response is not None
    assert response.status == 303
    return dict(response.headers)["set-cookie"].split(";")[0]
