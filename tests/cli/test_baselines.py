"""Baselines CI can use: runs are tagged (`run --tag`), and `--baseline` takes `previous`, a
tag, a run id or the JSON report of an earlier run (main's CI artifact, on a machine without
its database); each resolves to the same diff, and a mistyped one is refused before any
case runs.

The fast tests record real eval runs of a scripted agent (right, then wrong, then right)
in this process into a real DuckDB file; the last test is the CI recipe with real
`tracegrade run` processes, a main machine and a fresh one.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.adk_run import ROUTER
from tests.support.cli import invoke, one_line_error, tracegrade
from tests.support.paths import DATA
from tests.support.tiers import costly
from tracegrade import __version__ as tracegrade_version
from tracegrade.capture import BlockingSpanProcessor, DuckDBSpanExporter
from tracegrade.exit_codes import ExitCode
from tracegrade.harness import RunOptions, load_agent, run_eval
from tracegrade.report.pages import run_live
from tracegrade.report.queries import ReportError
from tracegrade.scoring import Selection, load_scoring_config, score
from tracegrade.store import LocalReader, SpanWriter, connect
from tracegrade.store.rows import SpanRow

FLAKY = DATA / "evalsets" / "harness" / "flaky.evalset.json"
FLAKY_AGENT = "tests.scoring.flaky_agent:root_agent"
SHOP = DATA / "evalsets" / "harness" / "shop.evalset.json"


def record_runs(db: Path, *tags: list[str], eval_set: Path = FLAKY) -> list[str]:
    """One scored eval run per entry, tagged so; the flaky agent's script starts over, so
    the first run passes and the second fails (it answers Rome for Paris)."""
    load_agent(FLAKY_AGENT).model.reset()  # type: ignore[attr-defined]  # shared by every run
    criteria = load_scoring_config(None, [str(eval_set)], [])
    writer = SpanWriter.open(db)
    processor = BlockingSpanProcessor(DuckDBSpanExporter(writer=writer))
    ROUTER.target = processor
    run_ids = []
    try:
        for run_tags in tags:
            options = RunOptions(eval_sets=[str(eval_set)], agent=FLAKY_AGENT, tags=run_tags)
            run_id = run_eval(options).run_id
            assert processor.force_flush()
            score(writer.connection, Selection(run_id=run_id), criteria.config, criteria.specs)
            run_ids.append(run_id)
    finally:
        ROUTER.target = None
        processor.shutdown()
        writer.close()
    return run_ids


@dataclass(frozen=True)
class History:
    """main (passed; tagged main and a commit), a change that regressed (pr), then main
    again (passed): three scored runs of one agent over one eval set, in one file."""

    db: Path
    first: str
    second: str
    third: str


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> History:
    db = tmp_path_factory.mktemp("history") / "runs.duckdb"
    first, second, third = record_runs(db, ["main", "0a1b2c3"], ["pr"], ["main"])
    return History(db, first, second, third)


def _diff_json(*args: str, code: ExitCode = ExitCode.GATE_FAILED) -> dict[str, Any]:
    done = invoke("diff", *args, "--json")
    assert done.exit_code == code, done.output
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def _runs(db: Path) -> list[dict[str, Any]]:
    done = invoke("runs", "--json", "--db", str(db))
    assert done.exit_code == 0, done.output
    found: list[dict[str, Any]] = json.loads(done.stdout)
    return found


@costly
def test_tags_are_stored_with_the_run_and_listed(history: History) -> None:
    assert [(r["run_id"], r["tags"]) for r in _runs(history.db)] == [
        (history.third, ["main"]),
        (history.second, ["pr"]),
        (history.first, ["main", "0a1b2c3"]),
    ]
    header, _, *rows = invoke("runs", "--db", str(history.db)).stdout.splitlines()
    assert header.split()[:2] == ["run", "tags"]
    assert rows[0].split()[:2] == [history.third, "main"]
    with connect(history.db, read_only=True) as connection:
        ((tags,),) = connection.execute(
            "SELECT tags FROM eval_runs WHERE run_id = ?", [history.first]
        ).fetchall()
    assert tags == ["main", "0a1b2c3"]


def test_previous_a_tag_and_the_run_id_give_the_same_diff(history: History) -> None:
    db = ("--db", str(history.db))
    by_id = _diff_json(history.first, history.second, *db)

    assert by_id["base_run_id"] == history.first
    assert by_id["totals"]["regressed"] == 1
    assert _diff_json("previous", history.second, *db) == by_id
    assert _diff_json("0a1b2c3", history.second, *db) == by_id
    assert _diff_json("0a1b2c3", "pr", *db) == by_id  # NEW by its tag too


def test_previous_is_the_newest_earlier_run_of_the_same_agent_and_eval_sets(
    history: History,
) -> None:
    db = ("--db", str(history.db))

    assert _diff_json("previous", history.third, *db, code=ExitCode.OK)["base_run_id"] == (
        history.second
    )
    done = invoke("diff", "previous", history.first, *db)
    assert done.exit_code == ExitCode.USAGE_ERROR
    assert one_line_error(done.stderr) == (
        f"tracegrade: BASE previous: no earlier run of {FLAKY_AGENT} over flaky is stored "
        "(a first run has none); give a run id, a tag or a report file"
    )


def test_a_tag_is_the_newest_run_carrying_it(history: History) -> None:
    db = ("--db", str(history.db))

    assert _diff_json("main", "pr", *db)["base_run_id"] == history.third
    assert _diff_json(history.first, "pr", *db)["base_run_id"] == history.first


def test_with_a_token_a_forged_run_never_takes_a_tag(
    history: History, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Anyone who can send spans can send a run span tagged main; not signed under the
    token, it is never the newest run carrying the tag."""
    db = tmp_path / "forged.duckdb"
    shutil.copy(history.db, db)
    attributes = {
        "tracegrade.run_id": "forged-run",
        "tracegrade.agent": FLAKY_AGENT,
        "tracegrade.eval_sets": json.dumps([{"eval_set_id": "flaky", "cases": 1}]),
        "tracegrade.tags": ["main"],
    }
    writer = SpanWriter.open(db)
    writer.write([SpanRow("f" * 32, "f" * 16, None, "tracegrade.eval_run", "INTERNAL", 1, 2,
                          "UNSET", None, "attacker", "tracegrade", None, json.dumps(attributes),
                          "{}", "[]", "[]", "otlp")])  # fmt: skip
    writer.close()
    done = invoke("diff", "main", "pr", "--db", str(db))
    assert one_line_error(done.stderr).endswith(
        "run 'forged-run' has not been scored: score it with `tracegrade score --run forged-run`"
    )  # without a token nothing tells it apart: the newest run tagged main

    monkeypatch.setenv("TRACEGRADE_TOKEN", "a-token")

    assert _diff_json("main", "pr", "--db", str(db))["base_run_id"] == history.third


def test_a_report_file_from_another_database_gives_the_same_diff_as_the_run_id(
    history: History, tmp_path: Path
) -> None:
    first, second = history.first, history.second
    report = tmp_path / "artifacts" / "main-report.json"
    done = invoke("report", first, "--json", str(report), "--db", str(history.db))
    assert done.exit_code == ExitCode.OK, done.output
    # A machine that never held the main run: the same file, without it.
    fresh = tmp_path / "fresh.duckdb"
    shutil.copy(history.db, fresh)
    with connect(fresh) as connection:
        connection.execute(
            "DELETE FROM spans WHERE name = 'tracegrade.eval_run' "
            "AND attributes->>'tracegrade.run_id' = ?",
            [first],
        )
        connection.execute("DELETE FROM scorings WHERE run_id = ?", [first])
    assert first not in [r["run_id"] for r in _runs(fresh)]
    assert invoke("diff", first, second, "--db", str(fresh)).exit_code == ExitCode.USAGE_ERROR

    by_file = _diff_json(str(report), second, "--db", str(fresh))

    assert by_file == _diff_json(first, second, "--db", str(history.db))
    # The terminal rendering of that one diff, from `report --baseline FILE`.
    shown = invoke("report", second, "--baseline", str(report), "--db", str(fresh))
    assert shown.exit_code == ExitCode.GATE_FAILED, shown.output
    assert f"Diff {first} → {second}" in shown.stdout
    assert "verdict passed → failed" in shown.stdout
    # Two report files need no database at all.
    new_report = tmp_path / "pr-report.json"
    invoke("report", second, "--json", str(new_report), "--db", str(history.db))
    assert _diff_json(str(report), str(new_report), "--db", str(tmp_path / "no.db")) == by_file


@costly
def test_report_and_the_live_page_take_a_tag_or_previous(history: History) -> None:
    first, second = history.first, history.second

    done = invoke("report", second, "--baseline", "0a1b2c3", "--db", str(history.db))
    assert done.exit_code == ExitCode.GATE_FAILED, done.output
    assert f"Diff {first} → {second}" in done.stdout
    with connect(history.db, read_only=True) as connection:
        reader = LocalReader(connection)
        assert f"Against {first}" in run_live(reader, second, "0a1b2c3")
        assert f"Against {first}" in run_live(reader, second, "previous")
        with pytest.raises(ReportError, match="a report file is not accepted here"):
            run_live(reader, second, "/etc/hostname.json")


def test_a_mistyped_baseline_stops_the_run_before_it_starts(history: History) -> None:
    before = _runs(history.db)

    done = invoke("run", str(FLAKY), "--agent", FLAKY_AGENT, "--baseline", "mian",
                  "--db", str(history.db))  # fmt: skip

    assert done.exit_code == ExitCode.USAGE_ERROR, done.output
    assert one_line_error(done.stderr) == (
        "tracegrade: --baseline 'mian': no eval run or tag of that name; did you mean main?"
    )
    assert _runs(history.db) == before  # no new run: not one case (or model call) was made


def test_previous_with_no_earlier_run_of_these_eval_sets_stops_the_run(history: History) -> None:
    before = _runs(history.db)

    done = invoke("run", str(SHOP), "--agent", FLAKY_AGENT, "--baseline", "previous",
                  "--db", str(history.db))  # fmt: skip

    assert done.exit_code == ExitCode.USAGE_ERROR, done.output
    assert one_line_error(done.stderr) == (
        f"tracegrade: --baseline previous: no earlier run of {FLAKY_AGENT} over shop is "
        "stored (a first run has none); give a run id, a tag or a report file"
    )
    assert _runs(history.db) == before


def test_a_tag_baseline_without_a_database_points_at_the_report_file(tmp_path: Path) -> None:
    missing = tmp_path / "fresh.duckdb"

    done = invoke("run", str(FLAKY), "--agent", FLAKY_AGENT, "--baseline", "main",
                  "--db", str(missing))  # fmt: skip

    assert done.exit_code == ExitCode.USAGE_ERROR, done.output
    assert one_line_error(done.stderr) == (
        f"tracegrade: --baseline main: no database at {missing} to find it in; on a fresh "
        "machine give main's JSON report instead (--baseline main-report.json)"
    )
    assert not missing.exists()


def _written(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def _older_report(history: History, path: Path) -> Path:
    """A report as a tracegrade that named a field differently would have written it."""
    invoke("report", history.first, "--json", str(path), "--db", str(history.db))
    document = json.loads(path.read_text())
    document["scoring"]["tracegrade_version"] = "0.0.1"
    document["run"]["agent_ref"] = document["run"].pop("agent")
    return _written(path, json.dumps(document))


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda tmp, runs: tmp / "missing.json",
            "no such file; give the report main's CI run wrote with `tracegrade run --json "
            "FILE` (kept as an artifact), or a run id or tag",
        ),
        (
            lambda tmp, runs: _written(tmp / "cut.json", '{"run": {'),
            "not JSON (line 1: Expecting property name enclosed in double quotes); write it "
            "with `tracegrade run --json FILE` (or `tracegrade report RUN --json FILE`)",
        ),
        (
            lambda tmp, runs: _written(tmp / "runs.json", "[]"),
            "not a run report (no run, scoring and cases: a `diff --json` or `runs --json` "
            "output?); write it with `tracegrade run --json FILE` (or `tracegrade report RUN "
            "--json FILE`)",
        ),
        (
            lambda tmp, runs: _older_report(runs, tmp / "old.json"),
            "written by tracegrade 0.0.1, which this tracegrade ({version}) cannot read "
            "(run.agent: field required); write it again with this version (`tracegrade "
            "report RUN --json FILE` where the run is stored, or rerun main)",
        ),
    ],
    ids=["missing", "not JSON", "not a report", "another version"],
)
def test_a_report_file_that_cannot_be_used_is_one_line_before_the_run(
    history: History, tmp_path: Path, make: Callable[[Path, History], Path], message: str
) -> None:
    path = make(tmp_path, history)
    db = history.db
    before = _runs(db)

    done = invoke("run", str(FLAKY), "--agent", FLAKY_AGENT, "--baseline", str(path),
                  "--db", str(db))  # fmt: skip

    assert done.exit_code == ExitCode.USAGE_ERROR, done.output
    expected = message.format(version=tracegrade_version)
    assert one_line_error(done.stderr) == f"tracegrade: --baseline {path}: {expected}"
    assert _runs(db) == before


@pytest.mark.parametrize(
    ("tag", "problem"),
    [
        ("previous", "'previous' is what `--baseline previous` means; choose another name"),
        ("main.json", "a name ending in .json would be read as a report file by --baseline"),
        (
            "two words",
            "a tag is 1 to 100 letters, digits and . _ / + @ -, starting with a "
            "letter or digit (e.g. main, v1.2, a git commit)",
        ),
    ],
)
def test_a_tag_that_could_not_be_found_again_is_refused(
    tmp_path: Path, tag: str, problem: str
) -> None:
    db = tmp_path / "runs.duckdb"

    done = invoke("run", str(FLAKY), "--agent", FLAKY_AGENT, "--tag", tag, "--db", str(db))

    assert done.exit_code == ExitCode.USAGE_ERROR, done.output
    assert one_line_error(done.stderr) == f"tracegrade: --tag {tag!r}: {problem}"
    assert not db.exists()


def test_the_ci_recipe_main_artifact_then_a_fresh_machine(tmp_path: Path) -> None:
    """main keeps its `--json` report; a job on a machine without main's database diffs
    against it; on main's machine the tag and `previous` name the same run."""
    main, fresh = tmp_path / "main", tmp_path / "fresh"
    main.mkdir()
    fresh.mkdir()
    run = ("run", str(FLAKY), "--agent", FLAKY_AGENT)

    done = tracegrade(*run, "--tag", "main", "--tag", "0a1b2c3", "--json",
                      "out/main-report.json", cwd=main)  # fmt: skip
    assert done.returncode == ExitCode.OK, done.stderr
    (main_run,) = [r["run_id"] for r in _runs(main / "cli.duckdb")]

    done = tracegrade(*run, "--baseline", str(main / "out" / "main-report.json"), cwd=fresh)

    assert done.returncode == ExitCode.OK, done.stderr
    (pr_run,) = [r["run_id"] for r in _runs(fresh / "cli.duckdb")]
    assert f"Diff {main_run} → {pr_run}" in done.stdout
    assert "1 case unchanged" in done.stdout
    by_tag = tracegrade(*run, "--baseline", "main", "--tag", "pr", cwd=main)
    assert by_tag.returncode == ExitCode.OK, by_tag.stderr
    assert f"Diff {main_run} → " in by_tag.stdout
    runs = _runs(main / "cli.duckdb")
    assert [r["tags"] for r in runs] == [["pr"], ["main", "0a1b2c3"]]
    assert f"Diff {main_run} → {runs[0]['run_id']}" in by_tag.stdout
    by_previous = tracegrade(*run, "--baseline", "previous", cwd=main)
    assert by_previous.returncode == ExitCode.OK, by_previous.stderr
    assert f"Diff {runs[0]['run_id']} → " in by_previous.stdout  # the pr run, just before
    # The fresh machine's run has no tag: no tags column.
    header = invoke("runs", "--db", str(fresh / "cli.duckdb")).stdout.splitlines()[0]
    assert header.split()[:2] == ["run", "started"]


def test_the_diff_below_a_failing_run_ends_with_the_commands_exit_code(history: History) -> None:
    """A failed run with nothing regressed exits 1 for its gate: the diff printed below it
    says that code, not the 0 the diff alone would give."""
    done = invoke("report", history.second, "--baseline", history.second, "--db", str(history.db))
    assert done.exit_code == ExitCode.GATE_FAILED, done.output
    last = done.stdout.rstrip().splitlines()[-1]
    assert last == "No regression → exit code 1 (quality gate failed)", done.stdout
