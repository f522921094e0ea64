"""What ships: the SQL inside the wheel, and a capture layer that stays light."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]

HEAVY = [
    "typer",
    "rich",
    "starlette",
    "uvicorn",
    "fastapi",
    "grpc",
    "google.adk",
    "tracegrade.cli",
    "tracegrade.report",
]


def test_capture_layer_imports_nothing_heavy() -> None:
    probe = (
        "import sys, json, tracegrade, tracegrade.capture\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert json.loads(done.stdout) == []


def test_layers_only_import_downwards() -> None:
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert lint, "import-linter is part of the dev extras"
    done = subprocess.run([lint], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "build",
            "--wheel",
            "--no-isolation",
            "--outdir",
            str(out),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    (built,) = out.glob("tracegrade-*.whl")
    return built


def test_wheel_ships_every_sql_file(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {
        f"tracegrade/queries/{p.relative_to(ROOT / 'queries')}"
        for p in (ROOT / "queries").rglob("*.sql")
    }
    assert expected
    assert expected <= names
    assert "tracegrade/scoring/prices.json" in names


def test_wheel_ships_the_page_templates_and_scripts(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    pages = ROOT / "src" / "tracegrade" / "report" / "pages"
    shipped = {
        f"tracegrade/report/pages/{p.relative_to(pages)}"
        for folder in ("templates", "static")
        for p in (pages / folder).iterdir()
    }
    assert {
        "tracegrade/report/pages/templates/run.html",
        "tracegrade/report/pages/static/plot.umd.min.js",
        "tracegrade/report/pages/static/LICENSE.plot",
        "tracegrade/report/pages/static/VENDOR.json",
    } <= shipped
    assert shipped <= names
    assert not [n for n in names if "axe" in n]  # the accessibility checker is tests' only


def test_wheel_leaves_out_what_only_develops_or_tests_it(wheel: Path) -> None:
    archive = zipfile.ZipFile(wheel)
    names = set(archive.namelist())
    # The docs tool lives in scripts/, the scorers' pure-Python references in tests/.
    assert "tracegrade/_readme.py" not in names
    assert "tracegrade/scoring/reference.py" not in names
    assert not [n for n in names if n.startswith(("tests/", "scripts/"))]
    text = archive.read("tracegrade/scoring/text.py")  # the tokenizers ship: SQL calls them
    assert b"def rouge_tokens" in text
    assert b"def token_f1" not in text


def test_installed_wheel_finds_its_own_sql(wheel: Path, tmp_path: Path) -> None:
    zipfile.ZipFile(wheel).extractall(tmp_path)
    probe = "from tracegrade._resources import queries_dir; print(queries_dir())"
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
    )
    assert Path(done.stdout.strip()) == tmp_path / "tracegrade" / "queries"
