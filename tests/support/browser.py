"""Headless Chromium for the page tests: Debian's `chromium`, driven by Playwright.

Playwright's own browser download (`playwright install`) is never used: the tests run the
system's Chromium (`apt-get install chromium`, as .ci/run does), or `$TRACEGRADE_CHROMIUM`.
Without it the tests skip on a developer's machine and fail under CI (`$CI` set), so CI
can never pass by skipping them.

Every page a test opens is watched: console errors and warnings, uncaught exceptions,
dialogs (an `alert()` an injected script would raise), and every request that is not
file:, data:, about:, blob: or the test server's own origin. Such a request is recorded and
aborted before it reaches DNS; a fetch the page's CSP stops never becomes a request, and
shows as a console error instead, so both watchers are needed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, ConsoleMessage, Dialog, Page, Route

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("TRACEGRADE_CHROMIUM", "/usr/bin/chromium"))
LAUNCH_ARGS = [
    "--no-sandbox",  # CI runs as root
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
# Kept by CI as an artifact; git-ignored.
ARTIFACTS = Path(os.environ.get("TRACEGRADE_ARTIFACTS", ROOT / "artifacts"))
SCREENSHOTS = ARTIFACTS / "screenshots"
AXE = ROOT / "tests" / "browser" / "vendor" / "axe.min.js"
VIEWPORT = {"width": 1200, "height": 900}


def require_chromium() -> Path:
    """The Chromium to run; skips the test without one, or fails it under CI."""
    problem = None
    if not CHROMIUM.exists():
        problem = f"{CHROMIUM} is missing (apt-get install chromium, or set TRACEGRADE_CHROMIUM)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            problem = "the playwright package is missing (pip install -e '.[dev]')"
    if problem is None:
        return CHROMIUM
    if os.environ.get("CI"):
        pytest.fail(f"browser tests cannot run under CI: {problem}", pytrace=False)
    pytest.skip(problem)


@dataclass
class Watched:
    """A page and everything it did that a clean page must not do."""

    page: Page
    errors: list[str] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    def assert_clean(self) -> None:
        assert self.errors == [], f"console errors: {self.errors}"
        assert self.leaks == [], f"requests leaving the page: {self.leaks}"
        assert self.dialogs == [], f"dialogs opened: {self.dialogs}"


def _local(url: str, origin: str | None) -> bool:
    if url.startswith(("file:", "data:", "about:", "blob:")):
        return True
    return origin is not None and (url == origin or url.startswith(origin + "/"))


def watch(context: BrowserContext, origin: str | None = None) -> Watched:
    """A new page of `context`, watched from before its first request."""
    page = context.new_page()
    watched = Watched(page)

    def console(message: ConsoleMessage) -> None:
        if message.type in ("error", "warning"):
            watched.errors.append(f"console.{message.type}: {message.text}")

    def dialog(opened: Dialog) -> None:
        watched.dialogs.append(opened.message)
        opened.dismiss()

    def route(handled: Route) -> None:
        if _local(handled.request.url, origin):
            handled.continue_()
        else:
            watched.leaks.append(handled.request.url)
            handled.abort()  # never reaches DNS or the network

    page.on("console", console)
    page.on("pageerror", lambda error: watched.errors.append(f"uncaught: {error}"))
    page.on("dialog", dialog)
    context.route("**/*", route)
    return watched


def screenshot(page: Page, name: str) -> Path:
    """A full-page screenshot under artifacts/screenshots (CI keeps the folder)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


# The axe-core rules the pages are held to: the accessibility basics (headings in
# order, tables with headers, text contrast, named links) and a few that come with them.
AXE_RULES = [
    "color-contrast",
    "heading-order",
    "page-has-heading-one",
    "empty-heading",
    "th-has-data-cells",
    "td-headers-attr",
    "document-title",
    "html-has-lang",
    "link-name",
    "image-alt",
    "svg-img-alt",
    "role-img-alt",
    "list",
    "listitem",
    "definition-list",
    "dlitem",
    "duplicate-id",
    "nested-interactive",
    "scrollable-region-focusable",
]


def axe_violations(page: Page, rules: list[str] = AXE_RULES) -> list[str]:
    """axe-core's findings on the page, one line each. Injected through the DevTools
    protocol, which the page's CSP does not govern."""
    page.evaluate(AXE.read_text(encoding="utf-8"))
    found: list[str] = page.evaluate(
        """rules => axe.run(document, {runOnly: {type: 'rule', values: rules}})
             .then(r => r.violations.map(v => `${v.id} (${v.nodes.length}): ` +
                   v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | ')))""",
        rules,
    )
    return found


OpenPage = Callable[..., Watched]


def heading_levels(page: Page) -> list[int]:
    levels: list[int] = page.evaluate(
        "() => [...document.querySelectorAll('h1,h2,h3,h4,h5,h6')].map(h => +h.tagName[1])"
    )
    return levels


def json_of(page: Page, script: str, *args: Any) -> Any:
    return page.evaluate(script, *args)
