"""Mistakes a user makes get one line naming what is wrong and exit 2, and leave nothing
behind: an agent that does not import, SQL that fails as it runs, an empty eval set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import invoke, one_line_error, tracegrade
from tests.support.new_database import new_database
from tests.support.paths import DATA
from tracegrade.exit_codes import ExitCode

FLAKY = DATA / "evalsets" / "harness" / "flaky.evalset.json"

BROKEN_AGENTS = {
    "syntax_error": ("root_agent = (\n", "SyntaxError: '(' was never closed", 1),
    "import_error": (
        "import json\nfrom google.adk.agents import NoSuchAgent\n",
        "ImportError: cannot import name 'NoSuchAgent'",
        2,
    ),
    "raises": ("\n\nraise RuntimeError('set GOOGLE_API_KEY\\nfirst')\n", "RuntimeError: set", 3),
    "missing_dependency": ("import no_such_dependency_xyz\n", "no_such_dependency_xyz", 1),
}


@pytest.mark.parametrize("name", sorted(BROKEN_AGENTS))
def test_an_agent_that_fails_to_import_is_a_usage_error(tmp_path: Path, name: str) -> None:
    source, error, line = BROKEN_AGENTS[name]
    folder = tmp_path / f"agent_{name}"
    folder.mkdir()
    (folder / "agent.py").write_text(source)

    done = tracegrade("run", str(FLAKY), "--agent", str(folder), cwd=tmp_path)

    assert done.returncode == ExitCode.USAGE_ERROR
    message = one_line_error(done.stderr)
    assert f"importing agent_{name}.agent failed" in message
    assert error in message
    assert f"{folder / 'agent.py'}, line {line})" in message
    assert done.stdout == ""
    assert not (tmp_path / "cli.duckdb").exists()  # nothing recorded


def test_a_missing_agent_folder_is_named_as_such(tmp_path: Path) -> None:
    done = tracegrade("run", str(FLAKY), "--agent", "/missing/dir", cwd=tmp_path)

    assert done.returncode == ExitCode.USAGE_ERROR
    assert one_line_error(done.stderr) == (
        "tracegrade: agent '/missing/dir': no such folder or file "
        "(give a folder holding agent.py, or package.module:attr)"
    )


def test_an_empty_eval_set_records_no_run(tmp_path: Path) -> None:
    empty = tmp_path / "empty.evalset.json"
    empty.write_text(json.dumps({"eval_set_id": "empty", "eval_cases": []}))

    done = tracegrade(
        "run", str(empty), "--agent", "tests.scoring.flaky_agent:root_agent", cwd=tmp_path
    )

    assert done.returncode == ExitCode.USAGE_ERROR
    assert one_line_error(done.stderr) == f"tracegrade: nothing to replay: {empty} holds no case"
    assert not (tmp_path / "cli.duckdb").exists()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return new_database(tmp_path / "views.duckdb")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["sql", "select nope from turns"],
            'the query failed: Binder Error: Referenced column "nope"',
        ),
        (
            ["sql", "with gone as (delete from spans returning *) select * from gone"],
            "only read-only queries are allowed, and this one holds a DELETE",
        ),
        (["score", "--where", "nope > 1"], "where 'nope > 1': Binder Error: Referenced column"),
        (
            ["export-evalset", "out.evalset.json", "--where", "nope"],
            "--where 'nope': Binder Error: Referenced column",
        ),
    ],
)
def test_sql_that_fails_as_it_runs_is_one_line(db: Path, args: list[str], message: str) -> None:
    done = invoke(*args, "--db", str(db))

    assert done.exit_code == ExitCode.USAGE_ERROR, done.output
    assert message in one_line_error(done.stderr)
    assert "LINE 1" not in done.stderr  # DuckDB's drawing of the query is left out


def test_an_unknown_run_is_not_advised_to_be_scored(db: Path) -> None:
    done = invoke("report", "nope", "--db", str(db))

    assert done.exit_code == ExitCode.USAGE_ERROR
    assert one_line_error(done.stderr) == (
        "tracegrade: no eval run 'nope': `tracegrade runs` lists the stored runs"
    )


def test_keys_adk_refuses_are_named_and_can_be_ignored(tmp_path: Path) -> None:
    document = json.loads(FLAKY.read_text())
    for invocation in document["eval_cases"][0]["conversation"]:
        invocation["expected_tool_use"] = [{"tool_name": "lookup"}]  # the old format's key
    mixed = tmp_path / "mixed.evalset.json"
    mixed.write_text(json.dumps(document))
    run = ["run", str(mixed), "--agent", "tests.scoring.flaky_agent:root_agent"]

    refused = tracegrade(*run, cwd=tmp_path)
    loaded = tracegrade(*run, "--ignore-unknown-keys", cwd=tmp_path)

    assert refused.returncode == ExitCode.USAGE_ERROR
    assert one_line_error(refused.stderr) == (
        f"tracegrade: eval set '{mixed}' case 'find_paris': conversation[0]: ADK refuses the "
        "unknown key expected_tool_use; fix the file, or pass --ignore-unknown-keys to load "
        "it without it"
    )
    warning = (
        f"tracegrade: eval set '{mixed}': ignoring keys ADK refuses: expected_tool_use; "
        "first in case 'find_paris': conversation[0]"
    )
    assert loaded.stderr.splitlines().count(warning) == 1
    assert loaded.returncode == ExitCode.OK, loaded.stdout


@pytest.mark.parametrize("since", ["3 days", "7w", "-1d", ""])
def test_a_since_without_a_number_and_unit_is_one_line(db: Path, since: str) -> None:
    done = invoke("score", "--since", since, "--db", str(db))

    assert done.exit_code == ExitCode.USAGE_ERROR, done.output
    assert one_line_error(done.stderr) == (
        f"tracegrade: --since {since!r}: give a number and a unit, e.g. 30m, 24h or 7d"
    )
