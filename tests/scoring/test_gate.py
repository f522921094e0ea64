"""The gate tells the truth: a case no criterion evaluated is not a pass (exit 4, each
metric named with why), an impossible bound is a config error, and one criteria file
serves eval runs and traffic."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.scoring.test_engine import FLAKY, FLAKY_AGENT, _run, _score
from tests.support.cli import tracegrade
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.errors import ConfigError
from tracegrade.exit_codes import ExitCode
from tracegrade.scoring import available_metrics, parse_config
from tracegrade.store import SpanWriter

SIMULATOR = "per_turn_user_simulator_quality_v1"
NOT_A_SCENARIO = (
    "no conversation scenario: it rates ADK's user simulator, which only conversation scenarios "
    "have"
)
NOT_APPLICABLE = "not applicable: it needs expected turns, and traffic has none"
NOT_CAPTURED = (
    "tool arguments were not captured (turn on content capture) so they cannot be compared"
)


def _criteria(tmp_path: Path, document: dict[str, Any]) -> str:
    path = tmp_path / "criteria.json"
    path.write_text(json.dumps(document))
    return str(path)


def test_only_metrics_not_computed_is_not_a_pass(tmp_path: Path) -> None:
    config = _criteria(tmp_path, {"criteria": {SIMULATOR: 0.8}})
    run = ["run", str(FLAKY), "--agent", FLAKY_AGENT, "--config", config]

    strict = tracegrade(*run, cwd=tmp_path)
    allowed = tracegrade(*run, "--allow-not-evaluated", cwd=tmp_path)

    assert strict.returncode == ExitCode.NOT_EVALUATED, strict.stderr
    assert (
        "Not evaluated (1 case with no criterion evaluated)\n"
        f"  {SIMULATOR} (1 turn): {NOT_A_SCENARIO}\n"
    ) in strict.stdout
    assert strict.stdout.splitlines()[-1] == (
        "NOT EVALUATED: 0/1 cases passed, 0 failed, 0 errored, 1 not evaluated "
        "→ exit 4 (cases not evaluated)"
    )
    assert allowed.returncode == ExitCode.OK, allowed.stderr
    assert "Not evaluated (1 case with no criterion evaluated) (allowed: allow_not_evaluated)" in (
        allowed.stdout
    )


def test_arguments_not_captured_is_named(tmp_path: Path) -> None:
    # ADK ignores the harness's request to record tool arguments with this set.
    config = _criteria(tmp_path, {"criteria": {"tool_trajectory_avg_score": 1.0}})
    done = tracegrade(
        "run", str(FLAKY), "--agent", FLAKY_AGENT, "--config", config, "--junit", "r.xml",
        cwd=tmp_path, env={"ADK_TELEMETRY_IGNORE_RUN_CONFIG": "1"},
    )  # fmt: skip

    assert done.returncode == ExitCode.NOT_EVALUATED, done.stdout + done.stderr
    assert f"tool_trajectory_avg_score (1 turn): {NOT_CAPTURED}" in " ".join(done.stdout.split())
    junit = (tmp_path / "r.xml").read_text()
    assert 'type="not_evaluated"' in junit
    assert f"tool_trajectory_avg_score: {NOT_CAPTURED}" in junit


def test_no_expectation_is_named(captured: BlockingSpanProcessor, writer: SpanWriter) -> None:
    run_id = _run(captured, FLAKY, FLAKY_AGENT)
    # The case's expectations never arrived (e.g. sampled out on the way to the server).
    writer.connection.execute("DELETE FROM spans WHERE name = 'tracegrade.eval_case'")

    result = _score(writer, run_id, {"criteria": {"response_match_score": 0.5}})

    assert result.exit_code == ExitCode.NOT_EVALUATED
    assert result.not_evaluated == {
        "response_match_score": ["no expectation: no expected turn was recorded for it"]
    }
    assert [c.verdict for c in result.cases] == ["not_evaluated"]


@costly
def test_a_case_judged_on_one_criterion_still_passes(
    captured: BlockingSpanProcessor, writer: SpanWriter
) -> None:
    run_id = _run(captured, FLAKY, FLAKY_AGENT)
    config = {"criteria": {"response_match_score": 0.5, SIMULATOR: 0.5}}

    result = _score(writer, run_id, config)

    assert result.exit_code == ExitCode.OK
    assert result.not_evaluated == {SIMULATOR: [NOT_A_SCENARIO]}


def test_no_criterion_at_all_is_not_a_pass(
    captured: BlockingSpanProcessor, writer: SpanWriter
) -> None:
    run_id = _run(captured, FLAKY, FLAKY_AGENT)

    result = _score(writer, run_id, {"criteria": {}})

    assert result.exit_code == ExitCode.NOT_EVALUATED
    assert result.not_evaluated == {"(none)": ["no criterion gates the run"]}


SPECS = available_metrics()


@pytest.mark.parametrize(
    ("criteria", "message"),
    [
        (
            {"criteria": {"response_match_score": 1.5}},
            "criteria.response_match_score: 1.5 is out of range "
            "(response_match_score scores run from 0 to 1)",
        ),
        (
            {"criteria": {"tool_trajectory_avg_score": {"threshold": -0.2}}},
            "criteria.tool_trajectory_avg_score.threshold: -0.2 is out of range",
        ),
        (
            {"tracegrade": {"criteria": {"token_usage": -100}}},
            "criteria.token_usage: -100 is out of range (token_usage scores are never below 0)",
        ),
        (
            {"tracegrade": {"criteria": {"latency": {"p95": -1}}}},
            "criteria.latency.p95: -1 is out of range (latency scores are never below 0)",
        ),
        (
            {"tracegrade": {"criteria": {"tool_error_rate": {"max": 2}}}},
            "criteria.tool_error_rate.max: 2 is out of range",
        ),
    ],
)
def test_impossible_bounds_are_config_errors(criteria: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_config(criteria, SPECS)
    assert str(raised.value).startswith(message)


def test_an_impossible_bound_in_a_file_stops_the_run(tmp_path: Path) -> None:
    config = _criteria(tmp_path, {"criteria": {"response_match_score": 1.5}})
    done = tracegrade("run", str(FLAKY), "--agent", FLAKY_AGENT, "--config", config, cwd=tmp_path)
    assert done.returncode == ExitCode.USAGE_ERROR
    assert done.stderr.startswith(f"tracegrade: {config}: criteria.response_match_score: 1.5")


def test_traffic_leaves_out_metrics_that_need_expected_turns(tmp_path: Path) -> None:
    from tests.support.paths import DATA

    config = _criteria(
        tmp_path,
        {
            "criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8},
            "tracegrade": {"criteria": {"latency": {"max": 60000}}},
        },
    )
    tracegrade("ingest", str(DATA / "traces" / "adk_v2_b.otlp.jsonl"), cwd=tmp_path)

    done = tracegrade(
        "score", "--since", "3650d", "--config", config, "--json", "t.json", cwd=tmp_path
    )

    assert done.returncode == ExitCode.OK, done.stderr
    assert (
        "not applicable: response_match_score, tool_trajectory_avg_score "
        "(it needs expected turns, and traffic has none)\n"
    ) in done.stdout
    report = json.loads((tmp_path / "t.json").read_text())
    assert report["scoring"]["not_evaluated"] == {
        "response_match_score": NOT_APPLICABLE,
        "tool_trajectory_avg_score": NOT_APPLICABLE,
    }
    assert [c["metric"] for c in report["scoring"]["criteria"]] == ["latency"]
