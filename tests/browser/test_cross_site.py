"""A hostile page in a real Chromium against a `tracegrade serve` without a token: another
site's `<form enctype="text/plain">` and `fetch(..., {mode: "no-cors"})` to /v1/score and
/v1/sql are refused, and a DNS-rebinding name (resolved to 127.0.0.1 by the browser) gets
neither a page nor SQL. Names are mapped with Chromium's resolver rules, so nothing leaves
the machine."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.serve.helpers import Server, free_port, start_server
from tests.support.browser import LAUNCH_ARGS, require_chromium
from tests.support.paths import DATA

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

RULES = "--host-resolver-rules=MAP evil.example 127.0.0.1, MAP rebind.example 127.0.0.1"
# Chromium's Private Network Access stops the rebinding page (fetched from a "public" name)
# from reading loopback; Firefox and Safari have no such check, so serve must not rely on it.
NO_PNA = "--disable-features=LocalNetworkAccessChecks,BlockInsecurePrivateNetworkRequests"
# With the value `"}`, the form's body is `{"where": "1 = 1 --="}`: JSON, one condition.
FORM_FIELD = '{"where": "1 = 1 --'
ATTACK = """<!doctype html><html><body>
<form id="score" method="post" enctype="text/plain" action="{target}/v1/score">
<input name='{field}' value='"}}'></form>
<script>
fetch("{target}/v1/sql", {{method: "POST", mode: "no-cors",
  body: JSON.stringify({{sql: "SELECT trace_id FROM spans"}})}}).then(
  () => {{ document.title = "sent"; }}, (e) => {{ document.title = "failed " + e; }});
</script></body></html>"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = start_server(tmp_path_factory.mktemp("cross-site"), "--grpc-port", "0")
    for line in (DATA / "traces" / "adk_v2_a.otlp.jsonl").read_text().splitlines():
        assert server.post("/v1/traces", line.encode(), {"content-type": "application/json"})
    yield server
    server.stop()


@pytest.fixture(scope="module")
def hostile(browser: Browser) -> Iterator[Browser]:
    """A second Chromium, whose resolver maps the two hostile names to loopback."""
    launched = browser.browser_type.launch(
        executable_path=str(require_chromium()),
        headless=True,
        args=[*LAUNCH_ARGS, RULES, NO_PNA],
    )
    yield launched
    launched.close()


@pytest.fixture(scope="module")
def evil_site(served: Server) -> Iterator[str]:
    """http://evil.example:PORT/, a plain HTTP server whose page attacks `served`."""
    page = ATTACK.format(target=f"http://localhost:{served.port}", field=FORM_FIELD).encode()

    class Attack(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: object) -> None:
            pass

    site = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Attack)
    thread = threading.Thread(target=site.serve_forever, daemon=True)
    thread.start()
    yield f"http://evil.example:{site.server_address[1]}/"
    site.shutdown()
    site.server_close()


def _scorings(server: Server) -> int:
    count: int = server.rows("SELECT count(*) FROM scorings")[0][0]
    return count


def _statuses(page: Page, url_part: str) -> list[int]:
    statuses: list[int] = []
    page.on("response", lambda r: statuses.append(r.status) if url_part in r.url else None)
    return statuses


def test_another_sites_form_and_fetch_are_refused(
    hostile: Browser, served: Server, evil_site: str, tmp_path: Path
) -> None:
    before = _scorings(served)
    context = hostile.new_context()
    try:
        page = context.new_page()
        sql = _statuses(page, "/v1/sql")
        page.goto(evil_site, wait_until="load")
        page.wait_for_function("document.title !== ''", timeout=30_000)
        assert page.title() == "sent"  # the request went out: the browser did not stop it
        assert sql == [403]
        with page.expect_navigation(timeout=30_000):
            page.locator("#score").evaluate("form => form.submit()")
        answer = page.locator("body").inner_text()
        assert "is not this server's" in answer, answer  # the form's answer, shown as a page
    finally:
        context.close()
    assert _scorings(served) == before


REBOUND = """<!doctype html><html><body><script>
fetch("/v1/sql", {method: "POST", headers: {"content-type": "application/json"},
  body: JSON.stringify({sql: "SELECT trace_id FROM spans"})}).then(
  async (r) => { document.title = r.status + " " + await r.text(); },
  (e) => { document.title = "failed " + e; });
</script></body></html>"""


def test_a_rebinding_name_gets_no_page_and_no_sql(hostile: Browser, served: Server) -> None:
    """The attacker's page comes from rebind.example's first address (the route stands in for
    it); its script then reads the same origin, whose name now resolves to 127.0.0.1."""
    origin = f"http://rebind.example:{served.port}"
    context = hostile.new_context()
    try:
        context.route(
            f"{origin}/", lambda route: route.fulfill(body=REBOUND, content_type="text/html")
        )
        page = context.new_page()
        page.goto(f"{origin}/", wait_until="load")
        page.wait_for_function("document.title !== ''", timeout=30_000)
        status, _, body = page.title().partition(" ")
        assert status == "421", page.title()
        assert "rebind.example" in body
        assert 'trace_id"' not in body  # the reason, not rows
        response = page.goto(f"{origin}/runs/x", wait_until="load")
        assert response is not None
        assert response.status == 421
        own = page.goto(f"http://localhost:{served.port}/", wait_until="load")
        assert own is not None
        assert own.status == 200  # the same server under its own name
    finally:
        context.close()
