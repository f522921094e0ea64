"""Scoring scenario cases: metrics that need expected turns are not applicable there, the
others score the simulated turns, and a failing simulator is an error, not a failure."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.harness.test_scenarios import AGENT, GOAL_REPLIES, SCENARIOS
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.exit_codes import ExitCode
from tracegrade.harness import RunOptions, run_eval
from tracegrade.report import build_report
from tracegrade.report.run.text import render_terminal
from tracegrade.scoring import ScoringResult, Selection, available_metrics, parse_config, score
from tracegrade.store import SpanWriter
from tracegrade.store.reader import LocalReader
from tracegrade.testing import ScriptedJudge, ScriptedUser, judge_answers

CRITERIA: dict[str, Any] = {
    "criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8},
    "tracegrade": {"criteria": {"token_usage": {"max": 4000}}},
}


def _scored(
    captured: BlockingSpanProcessor,
    writer: SpanWriter,
    user: ScriptedUser,
    eval_sets: list[str],
    criteria: dict[str, Any] = CRITERIA,
) -> tuple[ScoringResult, str]:
    name = user.register(f"scored-user-{uuid.uuid4().hex[:8]}")
    raw = criteria | {"user_simulator_config": {"model": name}}
    result = run_eval(RunOptions(eval_sets=eval_sets, agent=AGENT, criteria=raw))
    assert captured.force_flush()
    specs = available_metrics(())
    scored = score(
        writer.connection, Selection(run_id=result.run_id), parse_config(raw, specs), specs
    )
    return scored, result.run_id


def _case_statuses(writer: SpanWriter, scoring_id: str, case_id: str) -> dict[str, str]:
    rows = writer.connection.execute(
        "SELECT metric, status FROM scores WHERE scoring_id = ? AND level = 'case' AND case_id = ?",
        [scoring_id, case_id],
    ).fetchall()
    return dict(rows)


def test_metrics_needing_expected_turns_are_not_applicable_on_a_scenario(
    captured: BlockingSpanProcessor, writer: SpanWriter
) -> None:
    user = ScriptedUser.from_replies(GOAL_REPLIES, usage={"input": 900, "output": 7})
    scored, _ = _scored(captured, writer, user, [str(SCENARIOS)])

    scenario = _case_statuses(writer, scored.scoring_id, "fill_the_cart")
    assert scenario["tool_trajectory_avg_score"] == "not_applicable"
    assert scenario["response_match_score"] == "not_applicable"
    assert scenario["token_usage"] == "passed"  # reference-free metrics score its turns
    assert scenario["tool_call_count"] == "informational"
    static = _case_statuses(writer, scored.scoring_id, "static_pear")
    assert static["tool_trajectory_avg_score"] == "passed"
    verdicts = {c.case_id: c.verdict for c in scored.cases}
    assert verdicts == {"fill_the_cart": "passed", "static_pear": "passed"}
    assert scored.exit_code == ExitCode.OK

    report = build_report(LocalReader(writer.connection), scored.scoring_id)
    text = render_terminal(report, 160)
    row = next(line for line in text.splitlines() if line.startswith("fill_the_cart"))
    assert row.count("n/a") == 2
    assert report.simulator is not None
    assert (report.simulator.conversations, report.simulator.stopped, report.simulator.calls) == (
        1, 1, 2
    )  # fmt: skip
    assert (
        "Simulated user: 1 conversation (1 goal reached, 0 turn limit, 0 failed) · "
        "2 calls · tokens 1,814"
    ) in text


JUDGE = ScriptedJudge(answer=lambda prompt, sample: judge_answers.auto(prompt))


@costly
def test_a_judged_metric_needing_expected_turns_is_not_applicable_on_a_scenario_too(
    captured: BlockingSpanProcessor, writer: SpanWriter
) -> None:
    """ADK's final_response_match_v2 compares with the expected response: n/a on a scenario,
    as the SQL metrics are, not "not evaluated" with ADK's complaint as the reason."""
    judge = {"judge_model_options": {"judge_model": f"{__name__}:JUDGE", "num_samples": 1}}
    criteria = {"criteria": {"final_response_match_v2": {"threshold": 0.5, **judge}}}
    user = ScriptedUser.from_replies(GOAL_REPLIES)
    scored, _ = _scored(captured, writer, user, [str(SCENARIOS)], criteria)

    statuses = {case: _case_statuses(writer, scored.scoring_id, case)["final_response_match_v2"]
                for case in ("fill_the_cart", "static_pear")}  # fmt: skip
    assert statuses == {"fill_the_cart": "not_applicable", "static_pear": "passed"}
    text = render_terminal(build_report(LocalReader(writer.connection), scored.scoring_id), 160)
    row = next(line for line in text.splitlines() if line.startswith("fill_the_cart"))
    assert "n/a" in row
    assert "Not evaluated" not in text
    assert "expected_invocation" not in text


def test_a_run_of_scenarios_alone_scores_under_adk_default_criteria(
    captured: BlockingSpanProcessor, writer: SpanWriter
) -> None:
    """No turn has an expectation: scoring such turns was a ConfigError before. Both of
    ADK's default metrics need expected turns, so neither applies, and with nothing else
    gating the case nothing evaluated it: not evaluated (exit 4), as any such case."""
    scenario_only = [f"{SCENARIOS}:fill_the_cart"]
    adk_defaults = {"criteria": CRITERIA["criteria"]}
    user = ScriptedUser.from_replies(GOAL_REPLIES)
    scored, _ = _scored(captured, writer, user, scenario_only, adk_defaults)
    assert (
        _case_statuses(writer, scored.scoring_id, "fill_the_cart")["tool_trajectory_avg_score"]
        == "not_applicable"
    )
    assert [c.verdict for c in scored.cases] == ["not_evaluated"]
    assert scored.exit_code == ExitCode.NOT_EVALUATED


def test_a_failing_simulator_is_an_error_not_a_failure(
    captured: BlockingSpanProcessor, writer: SpanWriter
) -> None:
    user = ScriptedUser(answer=lambda prompt, seed: None)
    scored, _ = _scored(captured, writer, user, [f"{SCENARIOS}:fill_the_cart"])
    assert [(c.verdict, c.errored_repeats, c.failed_repeats) for c in scored.cases] == [
        ("error", 1, 0)
    ]
    assert scored.exit_code == ExitCode.ERRORS_OVER_LIMIT


@pytest.mark.parametrize("tokens", [4000, 10])
def test_a_scenario_fails_on_its_own_turns_only(
    captured: BlockingSpanProcessor, writer: SpanWriter, tokens: int
) -> None:
    """The agent's turns hold 119 and 192 tokens; the simulator's 5,000 never count."""
    user = ScriptedUser.from_replies(GOAL_REPLIES, usage={"input": 5000, "output": 0})
    criteria = {"tracegrade": {"criteria": {"token_usage": {"max": tokens}}}}
    scored, _ = _scored(captured, writer, user, [f"{SCENARIOS}:fill_the_cart"], criteria)
    expected = "passed" if tokens == 4000 else "failed"
    assert [c.verdict for c in scored.cases] == [expected]
