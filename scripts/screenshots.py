"""Regenerate the screenshots (README.md, docs/getting-started.md) from the real example run.

    .venv/bin/python scripts/screenshots.py

Runs examples/home_automation twice into a temporary database (the second run against the
first as its baseline, so the trends have two points), writes the run's HTML report as
`tracegrade run --html` does, and photographs it in headless Chromium (Debian's `chromium`,
or $TRACEGRADE_CHROMIUM): the top of the run page, and the failing case's turn with its span
waterfall. Writes docs/images/run-page.png and docs/images/turn-waterfall.png.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "home_automation"
IMAGES = ROOT / "docs" / "images"
CHROMIUM = os.environ.get("TRACEGRADE_CHROMIUM", "/usr/bin/chromium")
TRACEGRADE = str(Path(sys.executable).with_name("tracegrade"))
# The case that fails on purpose: its turn is the waterfall shown.
FAILING_CASE = "home/bedside_lamp_off"


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        page = _example_report(Path(folder))
        IMAGES.mkdir(parents=True, exist_ok=True)
        _photograph(page)
    for name in ("run-page.png", "turn-waterfall.png"):
        print(f"{IMAGES / name}: {(IMAGES / name).stat().st_size:,} bytes")


def _example_report(folder: Path) -> Path:
    db, html = folder / "example.duckdb", folder / "run.html"
    # Relative paths: the page shows the agent as the README tells users to name it.
    example = str(EXAMPLE.relative_to(ROOT))
    run = [TRACEGRADE, "run", example, "--agent", example, "--db", str(db)]
    env = {**os.environ, "HOME_AGENT_MODEL": "scripted"}
    # Each run exits 1: two cases fail on purpose.
    subprocess.run(run, env=env, cwd=ROOT, capture_output=True, check=False)
    second = [*run, "--baseline", _latest_run(db), "--html", str(html)]
    subprocess.run(second, env=env, cwd=ROOT, capture_output=True, check=False)
    if not html.exists():
        raise SystemExit("the example run wrote no HTML report")
    return html


def _latest_run(db: Path) -> str:
    done = subprocess.run(
        [TRACEGRADE, "sql", "--db", str(db), "-f", "csv",
         "SELECT run_id FROM eval_runs ORDER BY started_at DESC LIMIT 1"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.splitlines()[1].strip()


def _photograph(page: Path) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        tab = browser.new_page(viewport={"width": 1100, "height": 1000})
        tab.goto(page.as_uri(), wait_until="load")
        tab.screenshot(path=str(IMAGES / "run-page.png"))
        case = tab.locator(f"details.case[data-case='{FAILING_CASE}']")
        case.locator("summary").click()
        case.get_by_role("link", name="waterfall").click()
        turn = tab.locator("details.turn[open]").first
        turn.screenshot(path=str(IMAGES / "turn-waterfall.png"))
        browser.close()


if __name__ == "__main__":
    main()
