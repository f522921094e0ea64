"""The docs cannot drift: generated sections are current, every column, view and shipped
metric is documented, the docs tool lists every command the CLI has, the MkDocs site builds
with --strict (no broken link or anchor), and the README keeps its first-screen commands."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import Abort

from tests.support.tiers import costly
from tests.support.views import VIEWS
from tracegrade.scoring.inputs import INPUT_TABLES, documented_inputs, documented_macros
from tracegrade.scoring.metrics import available_metrics
from tracegrade.store import connect
from tracegrade.store.schema_docs import relations

ROOT = Path(__file__).parents[1]
DOCS_TOOL = ROOT / "scripts" / "docs.py"


@costly
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


@costly
def test_every_table_a_metric_reads_is_documented_from_its_sql_header() -> None:
    # documented_inputs raises on a column its header leaves out (or names but lacks).
    documented = {r.name: r for r in documented_inputs()}
    derived = {"scored_scenario_cases", "scored_trajectories", "scored_trajectory_pairs"}
    assert set(documented) == {*INPUT_TABLES, *derived, "prices"}
    assert documented["scored_turns"].extends == "turns"
    assert [c.name for c in documented["scored_turns"].columns] == ["has_expected"]
    reference = (ROOT / "docs" / "metrics.md").read_text()
    shown = re.findall(r"^### `(\w+)`$", reference, re.M)
    assert shown == list(documented)
    macros = [signature.split("(")[0] for signature, _ in documented_macros()]
    assert macros == ["tg_judged", "tg_vote", "tg_judge_detail", "tg_rubric_turns",
                      "tg_one_answer", "tg_item_turns"]  # fmt: skip
    assert all(f"| `{name}(" in reference for name in macros)


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


@costly
def test_the_site_builds_strict_with_every_page_in_its_nav(tmp_path: Path) -> None:
    # As CI builds it (`mkdocs build --strict`), in this process: strict turns MkDocs'
    # warnings (a link to a missing page or anchor, a page left out of the nav) into a failed
    # build, and scripts/mkdocs_hooks.py checks the links to the repository's files.
    build(load_config(str(ROOT / "mkdocs.yml"), site_dir=str(tmp_path)))
    assert (tmp_path / "metrics" / "index.html").is_file()
    pages = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").glob("*.md")}
    assert pages == set(_nav_pages(yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]))


@pytest.mark.parametrize(
    ("link", "error"),
    [
        ("[a](other.md#nowhere)", "does not contain an anchor '#nowhere'"),
        ("[a](missing.md)", "the target is not found among documentation files"),
        ("[a](../no_such_file.py)", "the link ../no_such_file.py names no repository file"),
    ],
)
def test_a_broken_link_fails_the_build(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, link: str, error: str
) -> None:
    # The same settings as mkdocs.yml, on a two-page site with one bad link.
    settings = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(f"# Home\n\n{link}\n")
    (tmp_path / "docs" / "other.md").write_text("# Other\n\n## Somewhere\n")
    (tmp_path / "no_such_file.md").write_text("")  # a repository file, but not this one
    hooks = [str(ROOT / hook) for hook in settings["hooks"]]
    site = {**settings, "nav": ["index.md", "other.md"], "hooks": hooks}
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(site))
    config = load_config(str(tmp_path / "mkdocs.yml"), site_dir=str(tmp_path / "site"))
    with pytest.raises(Abort):
        build(config)
    assert error in caplog.text


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
        ".venv/bin/pytest -n auto --dist loadfile\n",
    ]
    assert len(readme.splitlines()) <= 350  # a front page; the manual is docs/
    # CI runs the tests as the README says to, and ends with them.
    ci = (ROOT / ".ci" / "run").read_text()
    assert ci.rstrip().splitlines()[-1] == blocks[1].strip()


def test_the_readme_links_only_to_files_that_exist() -> None:
    readme = (ROOT / "README.md").read_text()
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)
    local = [t for t in targets if not t.startswith(("http://", "https://"))]
    assert "docs/index.md" in local
    assert [t for t in local if not (ROOT / t).exists()] == []
