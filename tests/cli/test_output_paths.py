"""Report files go where they are asked: a folder that does not exist yet (a CI job's
`reports/`) is made, and a path that cannot be written is refused before anything runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.examples.home_example import AGENT, EVALSET
from tests.support.archive import adk_traffic_db
from tests.support.cli import invoke, one_line_error, tracegrade
from tracegrade.exit_codes import ExitCode

OFFLINE = {"HOME_AGENT_MODEL": "scripted", "HOME_JUDGE_MODEL": "scripted",
           "HOME_USER_MODEL": "scripted"}  # fmt: skip


def _reports(folder: Path) -> list[str]:
    return ["--json", str(folder / "a" / "r.json"), "--junit", str(folder / "b" / "r.xml"),
            "--html", str(folder / "c" / "d" / "r.html")]  # fmt: skip


@pytest.fixture(scope="module")
def example_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example run by `tracegrade run`, its reports into folders not made yet."""
    cwd = tmp_path_factory.mktemp("run")
    done = tracegrade("run", str(EVALSET), "--agent", AGENT, *_reports(cwd / "reports"),
                      cwd=cwd, env=OFFLINE)  # fmt: skip
    # Two cases fail on purpose: the gate's exit code, not a crash after the summary.
    assert done.returncode == ExitCode.GATE_FAILED, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout.rstrip().endswith("→ exit 1 (quality gate failed)")
    return cwd


def test_run_writes_its_reports_into_folders_it_makes(example_run: Path) -> None:
    reports = example_run / "reports"
    assert len(json.loads((reports / "a" / "r.json").read_text())["cases"]) == 12
    assert "<failure" in (reports / "b" / "r.xml").read_text()
    assert (reports / "c" / "d" / "r.html").read_text().startswith("<!doctype html>")


@pytest.mark.parametrize("command", [["score"], ["report"]])
def test_score_and_report_make_the_folders_too(
    example_run: Path, tmp_path: Path, command: list[str]
) -> None:
    done = invoke(*command, "--db", str(example_run / "cli.duckdb"), *_reports(tmp_path / "out"))

    assert done.exit_code == ExitCode.GATE_FAILED, done.output
    assert json.loads((tmp_path / "out" / "a" / "r.json").read_text())["exit_code"] == 1
    assert (tmp_path / "out" / "b" / "r.xml").is_file()
    assert (tmp_path / "out" / "c" / "d" / "r.html").is_file()


def test_export_evalset_makes_its_folder(tmp_path: Path) -> None:
    db = adk_traffic_db(tmp_path / "traffic.duckdb")
    out = tmp_path / "golden" / "new" / "traffic.evalset.json"

    done = invoke("export-evalset", str(out), "--where", "true", "--db", str(db))

    assert done.exit_code == 0, done.output
    assert len(json.loads(out.read_text())["eval_cases"]) == 3


def test_an_unwritable_report_path_stops_run_before_any_case(tmp_path: Path) -> None:
    (tmp_path / "reports").write_text("a file where the folder should be")

    done = tracegrade("run", str(EVALSET), "--agent", AGENT, "--junit", "reports/x/r.xml",
                      cwd=tmp_path, env=OFFLINE)  # fmt: skip

    assert done.returncode == ExitCode.USAGE_ERROR
    assert one_line_error(done.stderr) == (
        "tracegrade: --junit reports/x/r.xml: cannot create its folder "
        "(reports is a file, not a folder)"
    )
    assert not (tmp_path / "cli.duckdb").exists()  # nothing ran, nothing was recorded


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["score", "--json", "."], "--json .: is a folder; give a file name in it"),
        (["report", "--html", "f/r.html"], "--html f/r.html: cannot create its folder"),
        (["export-evalset", "f/x.evalset.json", "--where", "true"], "OUT f/x.evalset.json:"),
    ],
)
def test_other_commands_refuse_an_unwritable_path_up_front(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "f").write_text("")

    done = invoke(*args, "--db", str(tmp_path / "none.duckdb"))

    assert done.exit_code == ExitCode.USAGE_ERROR, done.output
    assert message in one_line_error(done.stderr)
    assert not (tmp_path / "none.duckdb").exists()  # refused before the database was opened
