"""Judgements are data: cached by metric, turn, judge, prompt, settings and sample, so
scoring again makes no call and a changed rubric re-judges that metric alone; a judge that
fails or answers nonsense leaves its turns not evaluated, counted as errors, never as a
pass or a fail; turns whose content was not captured are not judged."""

from __future__ import annotations

import json
from typing import Any

import duckdb
import pytest

from tests.support.adk_run import adk_settings
from tests.support.judging import RUBRICS, SwitchJudge, house_agent, scenario_invocations
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.exit_codes import ExitCode
from tracegrade.scoring import ScoringResult, Selection, available_metrics, parse_config, score
from tracegrade.scoring.judging import JudgeSettings
from tracegrade.store import SpanWriter
from tracegrade.testing import judge_answers

FAST = JudgeSettings(backoff_s=0.001, retries=1)
FINAL = "rubric_based_final_response_quality_v1"
TOOLS = "rubric_based_tool_use_quality_v1"


def _criteria(**overrides: Any) -> dict[str, Any]:
    judge = {"judge_model": SwitchJudge.NAME, "num_samples": 2}
    criteria: dict[str, Any] = {
        FINAL: {"threshold": 0.5, "judge_model_options": judge, "rubrics": RUBRICS["final"]},
        TOOLS: {"threshold": 0.5, "judge_model_options": judge, "rubrics": RUBRICS["tools"]},
    }
    return {"criteria": criteria | overrides}


def _score(writer: SpanWriter, run_id: str, document: dict[str, Any]) -> ScoringResult:
    config = parse_config(document, available_metrics())
    return score(writer.connection, Selection(run_id=run_id), config, available_metrics(), FAST)


def _turn_scores(connection: duckdb.DuckDBPyConnection, scoring_id: str) -> dict[Any, Any]:
    rows = connection.execute(
        "SELECT metric, case_id, turn_index, score, status, detail FROM scores "
        "WHERE scoring_id = ? AND level = 'turn' AND metric LIKE 'rubric%'",
        [scoring_id],
    ).fetchall()
    return {(m, c, t): (s, st, json.loads(d)) for m, c, t, s, st, d in rows}


@costly
def test_scoring_again_calls_no_judge_and_gives_the_same_scores(
    house_run: str, writer: SpanWriter, switch_judge: type[SwitchJudge]
) -> None:
    first = _score(writer, house_run, _criteria())
    calls = switch_judge.call_count()
    second = _score(writer, house_run, _criteria())
    assert calls == (6 + 6) * 2  # six turns, two metrics, two samples
    assert switch_judge.call_count() == calls
    ours = _turn_scores(writer.connection, first.scoring_id)
    assert ours == _turn_scores(writer.connection, second.scoring_id)
    usage = writer.connection.execute(
        "SELECT scoring_id, sum(judgements), sum(cached), sum(calls) FROM judge_usage "
        "GROUP BY ALL ORDER BY sum(cached)"
    ).fetchall()
    assert usage == [(first.scoring_id, 24, 0, 24), (second.scoring_id, 24, 24, 0)]


@costly
def test_a_changed_rubric_rejudges_that_metric_only(
    house_run: str, writer: SpanWriter, switch_judge: type[SwitchJudge]
) -> None:
    _score(writer, house_run, _criteria())
    changed = _criteria()
    changed["criteria"][TOOLS]["rubrics"] = [
        {"rubric_id": "args", "rubric_content": {"text_property": "Arguments are right."}}
    ]
    again = _score(writer, house_run, changed)
    usage = dict(
        writer.connection.execute(
            "SELECT metric, calls FROM judge_usage WHERE scoring_id = ?", [again.scoring_id]
        ).fetchall()
    )
    assert usage == {FINAL: 0, TOOLS: 12}


@costly
def test_a_failing_judge_is_an_error_not_a_failure(
    house_run: str, writer: SpanWriter, switch_judge: type[SwitchJudge]
) -> None:
    def answers(prompt: str, sample: int) -> str:
        if "Turn on the kitchen light." in prompt:
            raise ConnectionResetError("judge unreachable")  # retried, then given up
        return judge_answers.auto(prompt)

    switch_judge.answers = staticmethod(answers)
    result = _score(writer, house_run, _criteria())
    turns = _turn_scores(writer.connection, result.scoring_id)
    value, status, detail = turns[(FINAL, "lights_on", 0)]
    assert (value, status) == (None, "not_evaluated")
    assert detail["judge_error"] is True
    assert detail["reason"].startswith("judge call failed: ConnectionResetError: judge unreachable")
    assert (result.judge_errors, result.judged) == (2, 12)
    assert result.exit_code == ExitCode.ERRORS_OVER_LIMIT
    lights_on = next(c for c in result.cases if c.case_id == "lights_on")
    assert lights_on.verdict == "not_evaluated"  # no metric failed it or passed it
    attempts = writer.connection.execute(
        "SELECT DISTINCT attempts FROM judgements WHERE outcome = 'failed'"
    ).fetchall()
    assert attempts == [(2,)]  # one retry (FAST), as configured

    switch_judge.answers = staticmethod(judge_answers.auto)
    again = _score(writer, house_run, _criteria())  # failures are not cached: asked again
    assert again.judge_errors == 0
    assert again.exit_code == ExitCode.OK


@costly
def test_unreadable_answers_are_errors_too_within_the_error_budget(
    house_run: str, writer: SpanWriter, switch_judge: type[SwitchJudge]
) -> None:
    switch_judge.answers = staticmethod(
        lambda prompt, sample: (
            "It looks fine." if "Who are you?" in prompt else judge_answers.auto(prompt)
        )
    )
    document = _criteria() | {"tracegrade": {"max_error_rate": 0.2}}
    result = _score(writer, house_run, document)
    value, status, detail = _turn_scores(writer.connection, result.scoring_id)[(FINAL, "who", 0)]
    assert (value, status, detail["judge_error"]) == (None, "not_evaluated", True)
    assert detail["reason"] == "the judge's answers could not be read"
    assert (result.judge_errors, result.judged) == (2, 12)  # 0.17 of the judged turns
    assert result.exit_code == ExitCode.OK


@costly
def test_turns_without_captured_content_are_not_judged(
    captured: BlockingSpanProcessor, writer: SpanWriter, switch_judge: type[SwitchJudge]
) -> None:
    with adk_settings("2", content=False):  # ADK's default: no message text on spans
        scenario_invocations(house_agent(), ("Turn on the kitchen light.",))
    assert captured.force_flush()
    config = parse_config(_criteria(), available_metrics())
    result = score(writer.connection, Selection(), config, available_metrics(), FAST)
    row = writer.connection.execute(
        "SELECT status, detail->>'reason' FROM scores WHERE scoring_id = ? AND metric = ?",
        [result.scoring_id, FINAL],
    ).fetchall()
    assert row[0][0] == "not_evaluated"
    assert row[0][1].startswith("the turn's messages were not captured")
    assert switch_judge.call_count() == 0


@pytest.mark.parametrize("config", [{"num_samples": 0}, {"judge_modle": "x"}])
def test_a_bad_judge_setting_is_a_config_error_naming_it(config: dict[str, Any]) -> None:
    from tracegrade.errors import ConfigError

    document = {"criteria": {FINAL: {"threshold": 0.5, "judge_model_options": config}}}
    with pytest.raises(ConfigError, match=f"criteria.{FINAL}.judge_model_options"):
        parse_config(document, available_metrics())
