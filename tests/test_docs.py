"""The docs cannot drift: generated sections are current, every column, view and shipped
metric is documented, the docs tool lists every command the CLI has, the MkDocs site builds
with --strict (no broken link or anchor), and the README keeps its first-screen commands."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

from tests.support.views import VIEWS
from tracegrade.scoring.metrics import available_metrics
from tracegrade.store import connect
from tracegrade.store.schema_docs import relations

ROOT = Path(__file__).parents[1]
DOCS_TOOL = ROOT / "scripts" / "docs.py"


def test_every_view_and_table_is_documented_column_by_column() -> None:
    connection = connect(":memory:")
    documented = {r.name for r in relations(connection)}  # raises on an undocumented column
    views = {
        r[0]
        for r in connection.execute(
            "SELECT view_name FROM duckdb_views() WHERE NOT internal AND schema_name = 'main'"
        ).fetchall()
    }
    tables = {
        r[0]
        for r in connection.execute(
            "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'"
        ).fetchall()
    }
    assert views >= VIEWS
    assert views | (tables - {"tracegrade_migrations"}) == documented
    data_model = (ROOT / "docs" / "data-model.md").read_text()
    shown = set(re.findall(r"^## `(\w+)` \((?:view|table)\)$", data_model, re.M))
    assert shown == documented


def test_every_shipped_metric_is_in_the_metrics_reference() -> None:
    listed = set(re.findall(r"^\| `(\w+)` \|", (ROOT / "docs" / "metrics.md").read_text(), re.M))
    assert set(available_metrics()) <= listed


def test_generated_sections_are_current() -> None:
    # As CI runs it: a fresh interpreter, the tool's own exit code.
    done = subprocess.run(
        [sys.executable, str(DOCS_TOOL)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr


def test_the_command_reference_has_every_command() -> None:
    reference = (ROOT / "docs" / "commands.md").read_text()
    shown = re.findall(r"^## `tracegrade ([\w -]+)`$", reference, re.M)
    assert shown == [
        "run", "score", "report", "diff", "runs", "sql", "ingest", "serve", "export-evalset",
        "lint-tools", "archive", "db path", "db upgrade",
    ]  # fmt: skip


def test_the_site_builds_strict_with_every_page_in_its_nav(tmp_path: Path) -> None:
    # As CI builds it; strict turns MkDocs' warnings (a link to a missing page or anchor, a
    # page left out of the nav) into a failed build, and the hook checks links to the repo.
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "metrics" / "index.html").is_file()
    pages = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").glob("*.md")}
    assert pages == set(_nav_pages(yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]))


def _nav_pages(nav: list[object]) -> list[str]:
    pages: list[str] = []
    for item in nav:
        for value in item.values() if isinstance(item, dict) else [item]:
            pages += _nav_pages(value) if isinstance(value, list) else [str(value)]
    return pages


def test_the_readme_keeps_its_two_first_screen_commands() -> None:
    # .ci/run runs the first one (the example, exit 1) and the second (the suite).
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)```", readme, re.S)
    assert blocks[:2] == [
        "python3 -m venv .venv && .venv/bin/pip install -q -e '.[dev]' && "
        ".venv/bin/tracegrade run examples/home_automation --agent examples/home_automation\n",
        ".venv/bin/pytest\n",
    ]
    assert len(readme.splitlines()) <= 350  # a front page; the manual is docs/


def test_the_readme_links_only_to_files_that_exist() -> None:
    readme = (ROOT / "README.md").read_text()
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)
    local = [t for t in targets if not t.startswith(("http://", "https://"))]
    assert "docs/index.md" in local
    assert [t for t in local if not (ROOT / t).exists()] == []
