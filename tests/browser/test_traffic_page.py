"""The traffic page `tracegrade score --sample … --html` writes: budgets per agent and model,
the worst turns first, each linking to its waterfall."""

from __future__ import annotations

from tests.browser.conftest import Example
from tests.support.browser import OpenPage, screenshot
from tracegrade.store import connect


def test_the_worst_turns_come_first_and_link_to_their_waterfalls(
    open_page: OpenPage, example: Example
) -> None:
    connection = connect(example.traffic_db, read_only=True)
    try:
        turns = connection.execute(
            "SELECT count(*), count(*) FILTER (is_error) FROM turns WHERE run_id IS NULL"
        ).fetchone()
    finally:
        connection.close()
    assert turns is not None
    total, errored = turns
    page = open_page(example.traffic_html.as_uri())
    page.assert_clean()
    rows = page.page.locator("table.worst-turns tbody tr")
    assert rows.count() == total
    failed = rows.locator("td:nth-child(3)").all_inner_texts()
    assert all("error" in f for f in failed[:errored])  # errors first
    assert all(f for f in failed[errored : errored + 1])  # then turns over a budget
    first = rows.nth(0).get_by_role("link")
    turn_id = (first.get_attribute("href") or "").removeprefix("#turn-")
    first.click()
    waterfall = page.page.locator(f"table.waterfall[data-turn-id='{turn_id}']")
    assert waterfall.is_visible()
    assert waterfall.locator("tr.span").count() >= 3
    assert page.page.locator("table.traffic-groups tbody tr").count() >= 3  # all, agent, model
    screenshot(page.page, "traffic")
    page.assert_clean()
