"""`tracegrade score --evalset`: sessions no tracegrade run made, scored against an eval set.

The sessions are `adk eval`'s own inference (tests/cli/adk_inference.py, in its own
process: ADK's EvaluationGenerator and user simulator, ADK's runner, not tracegrade's
harness) of a real google-adk agent with a scripted model, its spans exported by the
agent module over OTLP/HTTP to a real `tracegrade serve` (or through tracegrade's
`configure()` into a DuckDB file), plus one production-like conversation no case holds.
The same agent and eval set through `tracegrade run` into another file give the scores to
agree with, judged metric included.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.serve.helpers import JSON, start_server
from tests.support.cli import ROOT, invoke, one_line_error, tracegrade
from tracegrade.exit_codes import ExitCode

AGENT = ROOT / "tests" / "cli" / "evalset_agent"
JUDGE = "tests.cli.evalset_agent.judge:JUDGE"
PRODUCTION_MESSAGE = "What can you do?"
# Their values depend on the clock, not on the agent's behaviour.
TIMED = {"latency", "invocation_duration"}
TOKEN = "evalset-serve-test-token"


def _turn(user: str, final: str, calls: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "user_content": {"role": "user", "parts": [{"text": user}]},
        "final_response": {"role": "model", "parts": [{"text": final}]},
        "intermediate_data": {"tool_uses": calls},
    }


def _case(eval_id: str, *turns: dict[str, Any]) -> dict[str, Any]:
    return {
        "eval_id": eval_id,
        "conversation": list(turns),
        "session_input": {"app_name": "evalset_agent", "user_id": "tester", "state": {}},
    }


BEDROOM = _case(
    "bedroom_two_turns",
    _turn(
        "How warm is the bedroom?",
        "The bedroom is at 20 degrees.",
        [{"name": "get_temperature", "args": {"room": "bedroom"}}],
    ),
    _turn(
        "Make it 22 degrees.",
        "Done: the bedroom is set to 22 degrees.",
        [{"name": "set_temperature", "args": {"room": "bedroom", "celsius": 22}}],
    ),
)
KITCHEN = _case(
    "kitchen",
    _turn(
        "Warm the kitchen up.",
        "The kitchen is now at 24 degrees.",
        [
            {"name": "get_temperature", "args": {"room": "kitchen"}},
            {"name": "set_temperature", "args": {"room": "kitchen", "celsius": 24}},
        ],
    ),
)
GREETING = _case("greeting", _turn("Hello", "Hello! I can read and set temperatures.", []))
NEVER_ASKED = _case(
    "never_asked", _turn("Turn the heating off everywhere.", "All heating is off.", [])
)
CRITERIA = {
    "criteria": {
        "tool_trajectory_avg_score": 1.0,
        "response_match_score": 0.5,
        "final_response_match_v2": {
            "threshold": 0.5,
            "judge_model_options": {"judge_model": JUDGE, "num_samples": 1},
        },
    }
}


def _eval_set(path: Path, *cases: dict[str, Any]) -> Path:
    path.write_text(json.dumps({"eval_set_id": "thermostat", "eval_cases": list(cases)}))
    return path


@dataclass(frozen=True)
class Stored:
    folder: Path
    adk_db: Path
    """`adk eval`'s inference and one production conversation; no tracegrade run."""
    run_db: Path
    """`tracegrade run` of the same eval set."""
    run_report: dict[str, Any]


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Stored:
    folder = tmp_path_factory.mktemp("score_evalset")
    (folder / "test_config.json").write_text(json.dumps(CRITERIA))
    inferred = _eval_set(folder / "infer.evalset.json", BEDROOM, KITCHEN, GREETING)
    adk_db = folder / "adk.duckdb"
    server = start_server(folder, db=adk_db)
    try:
        _infer(inferred, {"EVALSET_AGENT_OTLP": server.url}, PRODUCTION_MESSAGE)
    finally:
        assert server.stop() == 0, server.stderr()  # its file is free to score now
    report = folder / "run.json"
    run = tracegrade("run", str(inferred), "--agent", str(AGENT), "--json", str(report), cwd=folder)
    assert run.returncode == ExitCode.GATE_FAILED, run.stderr  # the kitchen case fails
    return Stored(folder, adk_db, folder / "cli.duckdb", json.loads(report.read_text()))


def _infer(evalset: Path, export: dict[str, str], *conversations: str) -> None:
    """`adk eval`'s inference of `evalset`, then the `conversations`, in their own process."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), str(ROOT)])),
        **export,
    }
    done = subprocess.run(
        [sys.executable, "-m", "tests.cli.adk_inference", str(evalset), *conversations],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr


def _case_scores(cases: list[dict[str, Any]], scores_key: str) -> dict[str, Any]:
    """{case: (verdict, [{metric: score} per repeat])}, timing metrics left out."""
    found = {}
    for case in cases:
        repeats = []
        for repeat in case[scores_key]:
            items = (
                repeat.items()
                if scores_key == "scores"
                else ((s["metric"], s) for s in repeat["scores"])
            )
            # Rounded: the run's JSON report rounds what the stored scores hold.
            repeats.append({m: _rounded(s["score"]) for m, s in items if m not in TIMED})
        found[case["case_id"]] = (case["verdict"], repeats)
    return found


def _rounded(score: float | None) -> float | None:
    return None if score is None else round(score, 9)


def _score(stored: Stored, evalset: Path, *more: str) -> tuple[int, dict[str, Any], str]:
    out = evalset.with_suffix(".report.json")
    result = invoke(
        "score", "--evalset", str(evalset), "--db", str(stored.adk_db), "--json", str(out), *more
    )
    document = json.loads(out.read_text()) if out.exists() else {}
    return result.exit_code, document, result.output


def test_the_same_scores_as_run_and_what_did_not_match(stored: Stored) -> None:
    evalset = _eval_set(
        stored.folder / "score.evalset.json", BEDROOM, KITCHEN, GREETING, NEVER_ASKED
    )
    code, document, output = _score(stored, evalset)

    run_cases = _case_scores(stored.run_report["cases"], "repeat_results")
    scored = _case_scores(document["cases"], "scores")
    assert {k: v for k, v in scored.items() if k != "never_asked"} == run_cases
    # Not trivially equal: the trajectory, the text match and the judge each tell cases apart.
    verdict, (kitchen,) = scored["kitchen"]
    assert verdict == "failed"
    assert kitchen["tool_trajectory_avg_score"] == 0.0
    assert kitchen["final_response_match_v2"] == 0.0
    assert scored["bedroom_two_turns"][1][0]["final_response_match_v2"] == 1.0
    assert 0.5 < scored["greeting"][1][0]["response_match_score"] < 1.0

    # The case no session answered is planned and not run, as in a stopped run.
    assert scored["never_asked"] == ("not_run", [])
    assert [c["case_id"] for c in document["unmatched_cases"]] == ["never_asked"]
    assert "Turn the heating off everywhere." in document["unmatched_cases"][0]["reason"]
    assert code == ExitCode.INCOMPLETE
    # The production conversation matches no case: listed, not scored.
    (session,) = document["unmatched_sessions"]
    assert (session["user_texts"], session["matches"]) == ([PRODUCTION_MESSAGE], [])
    assert (document["matched_sessions"], document["turns"]) == (3, 4)
    assert "1 case(s) matched no session" in output
    assert PRODUCTION_MESSAGE in output


def test_every_matching_session_is_a_repeat(stored: Stored, tmp_path: Path) -> None:
    """A second `adk eval` of one case (its num_runs): two sessions, two repeats."""
    again = _eval_set(tmp_path / "again.evalset.json", GREETING)
    (tmp_path / "test_config.json").write_text(
        json.dumps({"criteria": {"response_match_score": 0.5}})
    )
    for _ in range(2):  # through configure(), into the file
        _infer(again, {"EVALSET_AGENT_DB": str(tmp_path / "again.duckdb")})
    result = invoke(
        "score", "--evalset", str(again), "--db", str(tmp_path / "again.duckdb"),
        "--json", str(tmp_path / "again.json"),
    )  # fmt: skip
    assert result.exit_code == ExitCode.OK, result.output
    (case,) = json.loads((tmp_path / "again.json").read_text())["cases"]
    assert (case["case_id"], case["repeats"], case["passed_repeats"]) == ("greeting", 2, 2)


def test_cases_with_the_same_user_messages_are_ambiguous(stored: Stored) -> None:
    twin = {**GREETING, "eval_id": "greeting_twin"}
    evalset = _eval_set(stored.folder / "twins.evalset.json", BEDROOM, GREETING, twin)
    code, document, _ = _score(stored, evalset)
    reasons = {c["case_id"]: c["reason"] for c in document["unmatched_cases"]}
    assert set(reasons) == {"greeting", "greeting_twin"}
    assert "ambiguous" in reasons["greeting"]
    ambiguous = [s for s in document["unmatched_sessions"] if s["matches"]]
    assert [s["matches"] for s in ambiguous] == [
        ["thermostat/greeting", "thermostat/greeting_twin"]
    ]
    assert [c["case_id"] for c in document["cases"] if c["verdict"] == "passed"] == [
        "bedroom_two_turns"
    ]
    assert code == ExitCode.INCOMPLETE


def test_a_run_is_not_matched_and_its_report_stays_the_latest(stored: Stored) -> None:
    """A tracegrade run's turns belong to its run: --evalset leaves them alone, and a
    --evalset scoring does not become the run `report` shows by default."""
    evalset = stored.folder / "infer.evalset.json"
    result = invoke("score", "--evalset", str(evalset), "--db", str(stored.run_db))
    assert result.exit_code == ExitCode.NOTHING_SELECTED
    assert "no stored session matches a case" in one_line_error(result.stderr)

    scored = invoke("score", "--evalset", str(evalset), "--db", str(stored.adk_db))
    assert scored.exit_code == ExitCode.GATE_FAILED  # the kitchen case, as in the run
    report = invoke("report", "--db", str(stored.adk_db))
    assert report.exit_code == ExitCode.USAGE_ERROR
    assert "no eval run has been scored yet" in one_line_error(report.stderr)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "file not found"),
        ("{not json", "score.bad.json"),
        ('{"eval_set_id": "x", "eval_cases": [{"conversation": []}]}', "eval_id"),
    ],
)
def test_a_bad_file_is_one_line(
    stored: Stored, tmp_path: Path, content: str | None, expected: str
) -> None:
    path = tmp_path / "score.bad.json"
    if content is not None:
        path.write_text(content)
    result = invoke("score", "--evalset", str(path), "--db", str(stored.adk_db))
    assert result.exit_code == ExitCode.USAGE_ERROR
    assert expected in one_line_error(result.stderr).lower()


def test_evalset_with_a_run_is_one_line(stored: Stored) -> None:
    evalset = stored.folder / "infer.evalset.json"
    result = invoke("score", "--evalset", str(evalset), "--run", "abc", "--db", str(stored.adk_db))
    assert result.exit_code == ExitCode.USAGE_ERROR
    assert "evalset" in one_line_error(result.stderr)


def test_the_python_api_takes_the_same_request(stored: Stored) -> None:
    import tracegrade
    from tracegrade.workspace.requests import ScoreRequest

    evalset = _eval_set(stored.folder / "api.evalset.json", GREETING, NEVER_ASKED)
    result = tracegrade.score(ScoreRequest(evalset=evalset), store=stored.adk_db)
    assert result.matching is not None
    assert result.exit_code == ExitCode.INCOMPLETE
    assert [c.case_id for c in result.matching.unmatched_cases] == ["never_asked"]
    # The bedroom, kitchen and production sessions match neither case here.
    assert len(result.matching.unmatched_sessions) == 3


def test_whole_conversations_match_whitespace_aside(stored: Stored) -> None:
    """A case holding only the first of a session's two turns does not match it; a case
    whose message differs only in the whitespace around it does."""
    first_only = _case("bedroom_first_only", BEDROOM["conversation"][0])
    padded = _case(
        "greeting_padded", _turn("  Hello\n", "Hello! I can read and set temperatures.", [])
    )
    evalset = _eval_set(stored.folder / "partial.evalset.json", first_only, padded)
    _, document, _ = _score(stored, evalset)
    assert [c["case_id"] for c in document["unmatched_cases"]] == ["bedroom_first_only"]
    assert [(c["case_id"], c["repeats"]) for c in document["cases"]] == [
        ("bedroom_first_only", 0),
        ("greeting_padded", 1),
    ]
    unmatched = sorted(tuple(s["user_texts"]) for s in document["unmatched_sessions"])
    assert ("How warm is the bedroom?", "Make it 22 degrees.") in unmatched


def test_through_a_running_serve_the_same_report(stored: Stored, tmp_path: Path) -> None:
    """While a serve holds the store, `--server URL` sends the eval set's cases and the
    criteria beside the file in the request (the server never sees the file), and the
    report is the one this process gives on a copy of the same traces."""
    evalset = _eval_set(tmp_path / "served.evalset.json", BEDROOM, KITCHEN, GREETING, NEVER_ASKED)
    (tmp_path / "test_config.json").write_text(json.dumps(CRITERIA))
    local_db, served_db = tmp_path / "local.duckdb", tmp_path / "served.duckdb"
    shutil.copy(stored.adk_db, local_db)
    shutil.copy(stored.adk_db, served_db)
    root = {"PYTHONPATH": os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), str(ROOT)]))}
    judge_module = JUDGE.partition(":")[0]
    server = start_server(
        tmp_path, "--judge-import", judge_module, db=served_db, token=TOKEN, env=root
    )
    try:
        served = _score_in_process(
            tmp_path, evalset, "served", "--server", server.url, env={"TRACEGRADE_TOKEN": TOKEN}
        )
        kept = server.rows(
            "SELECT selection->>'evalset' FROM scorings WHERE scoring_id = ?",
            [served.document["scoring_id"]],
        )
    finally:
        assert server.stop() == 0, server.stderr()
    local = _score_in_process(tmp_path, evalset, "local", "--db", str(local_db))

    assert served.code == local.code == ExitCode.INCOMPLETE, served.output
    ids = ("scoring_id", "run_id")
    assert {k: v for k, v in served.document.items() if k not in ids} == {
        k: v for k, v in local.document.items() if k not in ids
    }
    # Not an empty agreement: every case and what did not match, scored as locally.
    scored = _case_scores(served.document["cases"], "scores")
    assert scored["kitchen"][0] == "failed"
    assert scored["bedroom_two_turns"][1][0]["final_response_match_v2"] == 1.0
    assert [c["case_id"] for c in served.document["unmatched_cases"]] == ["never_asked"]
    assert served.output.replace(served.document["scoring_id"], "S") == local.output.replace(
        local.document["scoring_id"], "S"
    )
    assert kept == [[str(evalset)]]  # the server stored the scoring in its file


@dataclass(frozen=True)
class Scored:
    code: int
    document: dict[str, Any]
    output: str


def _score_in_process(
    folder: Path, evalset: Path, name: str, *where: str, env: dict[str, str] | None = None
) -> Scored:
    """`tracegrade score --evalset` in its own process, as a user runs it."""
    out = folder / f"{name}.json"
    done = tracegrade(
        "score", "--evalset", str(evalset), *where, "--json", str(out), cwd=folder, env=env
    )
    assert not done.stderr, done.stderr
    return Scored(done.returncode, json.loads(out.read_text()), done.stdout)


def test_serve_checks_the_cases_it_is_sent_and_takes_a_large_eval_set(tmp_path: Path) -> None:
    """The server checks the cases it is sent as it checks any field of the body, and an
    eval set's cases may take more than a SQL query's 1 MiB."""
    server = start_server(tmp_path, token="")
    turn = {"turn_index": 0, "user_text": "x" * 1000, "final_text": None}
    case = {"eval_set_id": "s", "session": None, "turns": [turn]}
    large = {"source": "large.json", "cases": [{**case, "case_id": f"c{i}"} for i in range(1500)]}
    try:
        bad = {"evalset": {"source": "x.json", "cases": [{**case, "case_id": 3}]}}
        refused = server.post("/v1/score", json.dumps(bad).encode(), JSON)
        body = json.dumps({"evalset": large}).encode()
        scored = server.post("/v1/score", body, JSON)
    finally:
        assert server.stop() == 0, server.stderr()
    assert refused.status == 400, refused.body
    assert refused.json()["error"].startswith("evalset.cases[0].case_id: ")
    assert len(body) > 1_500_000
    # Read and matched: the empty store has no session for any of them.
    assert scored.status == 422, scored.body
    assert "no stored session" in scored.json()["error"]
