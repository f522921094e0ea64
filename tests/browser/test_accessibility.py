"""Accessibility basics on every page: one h1 and no heading level skipped, every table with
header cells, text contrast and named links (axe-core), every link and disclosure reachable
with the keyboard. And the checkers themselves: axe and the heading check catch a page
that breaks them."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.browser.conftest import Example
from tests.support.browser import OpenPage, Watched, axe_violations, heading_levels

PAGES = ["run", "traffic"]


def _file(example: Example, name: str) -> Path:
    return {"run": example.run_html, "traffic": example.traffic_html}[name]


def check_basics(page: Watched) -> None:
    levels = heading_levels(page.page)
    assert levels[0] == 1, levels
    assert levels.count(1) == 1, levels
    assert all(b - a <= 1 for a, b in itertools.pairwise(levels)), levels
    headless = page.page.evaluate(
        "() => [...document.querySelectorAll('table')].filter(t => !t.querySelector('th'))"
        ".map(t => t.className)"
    )
    assert headless == []
    # Open every disclosure, so axe sees (and checks the contrast of) what a reader would.
    page.page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
    assert axe_violations(page.page) == []


@pytest.mark.parametrize("name", PAGES)
def test_page_basics(open_page: OpenPage, example: Example, name: str) -> None:
    page = open_page(_file(example, name).as_uri())
    check_basics(page)
    page.assert_clean()


@pytest.mark.parametrize("name", PAGES)
def test_keyboard_reaches_every_link_and_disclosure(
    open_page: OpenPage, example: Example, name: str
) -> None:
    page = open_page(_file(example, name).as_uri()).page
    # What a reader can see (a link inside a closed disclosure is reached once it is open).
    shown = (
        "() => [...document.querySelectorAll('a[href], summary')].filter(e => e.checkVisibility())"
    )
    targets = page.evaluate(f"() => ({shown})().length")
    assert targets > 5
    seen = set()
    for _ in range(targets + 3):
        page.keyboard.press("Tab")
        seen.add(page.evaluate(f"() => ({shown})().indexOf(document.activeElement)"))
    assert seen - {-1} == set(range(targets))


def test_the_checks_catch_a_page_that_fails_them(open_page: OpenPage, tmp_path: Path) -> None:
    bad = tmp_path / "bad.html"
    bad.write_text(
        '<!doctype html><html lang="en"><title>bad</title><h1>x</h1><h3>skipped</h3>'
        '<p style="color:#bbb;background:#fff">faint</p><table><tr><td>1</td></tr></table>'
    )
    page = open_page(bad.as_uri())
    assert heading_levels(page.page) == [1, 3]
    with pytest.raises(AssertionError):
        check_basics(page)
    found = {v.split(" ")[0] for v in axe_violations(page.page)}
    assert {"color-contrast", "heading-order"} <= found
