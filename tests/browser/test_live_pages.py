"""The live pages of a real `tracegrade serve` over the example's database, in Chromium: a
browser signs in once with ?token= and then walks runs → run → failing case → turn by
clicking links, every page loading with no console error and no request leaving the
server, the plots drawn, the diff and the waterfall in place; the traffic page likewise."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.conftest import Example
from tests.serve.helpers import Server, start_server
from tests.support.browser import OpenPage, Watched, screenshot
from tracegrade.report.pages.links import LiveLinks
from tracegrade.store import connect

TOKEN = "live-browser-token"
LIVE = LiveLinks()


def _serve(db: Path, folder: Path) -> Server:
    copy = folder / db.name
    shutil.copy(db, copy)  # serve opens its database for writing
    return start_server(folder, "--grpc-port", "0", db=copy, token=TOKEN)


@pytest.fixture(scope="module")
def served(example: Example, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = _serve(example.db, tmp_path_factory.mktemp("live"))
    yield server
    server.stop()


def _signed_in(open_page: OpenPage, server: Server) -> Watched:
    page = open_page(f"{server.url}/?token={TOKEN}", origin=server.url)
    assert page.page.url == f"{server.url}/"  # redirected: the token left the address
    return page


def _spans(db: Path, turn_id: str) -> list[str]:
    connection = connect(db, read_only=True)
    try:
        rows = connection.execute(
            "SELECT span_id FROM agent_spans WHERE trace_id = ? ORDER BY start_ns, span_id",
            [turn_id.split("-", 1)[0]],
        ).fetchall()
    finally:
        connection.close()
    return [r[0] for r in rows]


def test_a_browser_walks_runs_run_case_turn(
    open_page: OpenPage, served: Server, example: Example
) -> None:
    watched = _signed_in(open_page, served)
    page = watched.page
    assert page.locator("h1").inner_text() == "tracegrade"
    screenshot(page, "live-runs")
    page.locator(f"a[href='{LIVE.run(example.run_id)}']").first.click()
    page.wait_for_url(f"{served.url}{LIVE.run(example.run_id)}")
    assert page.title().startswith("FAILED · run ")
    bins = page.locator("#chart-token_usage g.bins > rect")
    assert bins.count() >= 1  # the plots draw on the live page as in the file
    assert page.locator("#chart-token_usage g.budget > line").count() == 1
    screenshot(page, "live-run")
    case = LIVE.case(example.run_id, "home", "bedside_lamp_off")
    page.locator(f"a[href='{case}']").first.click()
    page.wait_for_url(f"{served.url}{case}")
    diff = page.locator("table.trajectory-diff").first
    assert diff.is_visible()  # a case's own page shows its failing turns' diffs open
    assert "list_devices" in diff.inner_text()
    screenshot(page, "live-case")
    waterfall = page.get_by_role("link", name="waterfall").first
    turn = waterfall.get_attribute("href") or ""
    assert turn.startswith("/turns/")
    waterfall.click()
    page.wait_for_url(f"{served.url}{turn}")
    rows = page.locator("table.waterfall tr.span")
    spans = _spans(example.db, turn.removeprefix("/turns/"))
    assert rows.evaluate_all("rs => rs.map(r => r.dataset.spanId)") == spans
    screenshot(page, "live-turn")
    watched.assert_clean()


def test_the_live_traffic_page_links_to_its_turns(
    open_page: OpenPage, example: Example, tmp_path: Path
) -> None:
    server = _serve(example.traffic_db, tmp_path)
    try:
        watched = _signed_in(open_page, server)
        page = watched.page
        traffic = LIVE.traffic(example.traffic_scoring_id)
        page.locator(f"a[href='{traffic}']").first.click()
        page.wait_for_url(f"{server.url}{traffic}")
        rows = page.locator("table.worst-turns tbody tr")
        assert rows.count() >= 3
        assert page.locator("svg g.bins > rect").count() >= 1
        screenshot(page, "live-traffic")
        link = rows.nth(0).get_by_role("link").first
        turn = link.get_attribute("href") or ""
        link.click()
        page.wait_for_url(f"{server.url}{turn}")
        assert page.locator("table.waterfall tr.span").count() == len(
            _spans(example.traffic_db, turn.removeprefix("/turns/"))
        )
        watched.assert_clean()
    finally:
        server.stop()
