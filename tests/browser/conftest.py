"""Browser tests: one headless Chromium for the session, a fresh context per page.

The pages under test are real: the home-automation example run twice through the CLI
(`tracegrade run … --html`, the second time against the first as `--baseline`), traffic
scored from the committed traces (`tracegrade score … --html`), and the report fixture's
runs (flaky, errored, priced cases). Launching Chromium takes ~0.5 s and a page loads in
~0.2 s, so the browser is shared and each test only opens what it checks.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.support.browser import LAUNCH_ARGS, VIEWPORT, OpenPage, Watched, require_chromium, watch
from tests.support.paths import DATA
from tracegrade.store import connect

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext

ROOT = Path(__file__).resolve().parents[2]
TRACEGRADE = str(Path(sys.executable).with_name("tracegrade"))
EXAMPLE = ROOT / "examples" / "home_automation"
TRACES = sorted((DATA / "traces").glob("adk_v2_*.otlp.jsonl"))
# Traffic held to budgets the committed traces break, so the page has turns to rank.
TRAFFIC_CRITERIA = {
    "criteria": {"token_usage": {"max": 500}, "latency": {"p95": 50}},
    "tracegrade": {"max_error_rate": 1.0},  # some traces crashed on purpose: a failure, not 3
}


# Package scope, not session: while Playwright's sync API is open, its event loop runs in
# this thread, and every later test that calls asyncio.run() (ADK runs) would fail.
@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    chromium = require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(chromium), headless=True, args=LAUNCH_ARGS
        )
        yield launched
        launched.close()


@pytest.fixture
def open_page(browser: Browser) -> Iterator[OpenPage]:
    """`open_page(url, origin=None, **context_options)`: the page, loaded and watched."""
    contexts: list[BrowserContext] = []

    def opened(url: str, origin: str | None = None, **options: Any) -> Watched:
        context = browser.new_context(viewport=VIEWPORT, **options)  # type: ignore[arg-type]
        contexts.append(context)
        watched = watch(context, origin)
        watched.page.goto(url, wait_until="load")
        return watched

    yield opened
    for context in contexts:
        context.close()


@dataclass(frozen=True)
class Example:
    db: Path
    traffic_db: Path
    run_id: str
    baseline_id: str
    traffic_scoring_id: str
    run_html: Path
    """the second run, diffed against the first"""
    traffic_html: Path
    markdown: str


def tracegrade(*args: str, expect: int = 0) -> str:
    env = {**os.environ, "HOME_AGENT_MODEL": "scripted"}  # offline, even with a Gemini key
    done = subprocess.run(
        [TRACEGRADE, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        cwd=ROOT,
    )
    assert done.returncode == expect, f"tracegrade {' '.join(args)}: {done.stderr[-2000:]}"
    return done.stdout


@pytest.fixture(scope="session")
def example(tmp_path_factory: pytest.TempPathFactory) -> Example:
    out = tmp_path_factory.mktemp("example")
    db = str(out / "example.duckdb")
    run = ["run", str(EXAMPLE), "--agent", str(EXAMPLE), "--db", db]
    tracegrade(*run, expect=1)  # two cases fail on purpose
    baseline_id = _latest_run(Path(db))
    markdown = tracegrade(
        *run, "--baseline", baseline_id, "--html", str(out / "run.html"), "--markdown", expect=1
    )
    traffic_db = str(out / "traffic.duckdb")
    tracegrade("ingest", *map(str, TRACES), "--db", traffic_db)
    criteria = out / "traffic.json"
    criteria.write_text(json.dumps(TRAFFIC_CRITERIA))
    tracegrade("score", "--sample", "1", "--config", str(criteria), "--db", traffic_db,
               "--html", str(out / "traffic.html"), expect=1)  # fmt: skip
    connection = connect(Path(traffic_db), read_only=True)
    try:
        (traffic_id,) = connection.execute(
            "SELECT scoring_id FROM scorings WHERE run_id IS NULL"
        ).fetchone() or ("",)
    finally:
        connection.close()
    return Example(
        db=Path(db),
        traffic_db=Path(traffic_db),
        run_id=_latest_run(Path(db)),
        baseline_id=baseline_id,
        traffic_scoring_id=str(traffic_id),
        run_html=out / "run.html",
        traffic_html=out / "traffic.html",
        markdown=markdown,
    )


def _latest_run(db: Path) -> str:
    connection = connect(db, read_only=True)
    try:
        row = connection.execute(
            "SELECT run_id FROM eval_runs ORDER BY started_at DESC LIMIT 1"
        ).fetchone()
    finally:
        connection.close()
    assert row is not None
    return str(row[0])
