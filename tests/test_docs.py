"""The docs cannot drift: generated sections are current, every column, view and shipped
metric is documented, and the docs tool lists every command the CLI has."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

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
