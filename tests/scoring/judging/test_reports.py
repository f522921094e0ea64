"""Reports show why a judge failed a turn (terminal, JSON, JUnit), and the judges' own
answers, calls and cost apart from the agent's."""

from __future__ import annotations

import json

from tests.support.judging import SwitchJudge
from tests.support.tiers import costly
from tracegrade.report import build_report, render_terminal, to_json, to_junit
from tracegrade.scoring import Selection, available_metrics, parse_config, score
from tracegrade.store import LocalReader, SpanWriter
from tracegrade.testing import judge_answers

pytestmark = costly  # every test here: see tests.support.tiers.costly


def _answers(prompt: str, sample: int) -> str:
    if judge_answers.kind(prompt) == "validate":
        return judge_answers.validate(prompt, {"That is quite cosy.": "unsupported"})
    if judge_answers.kind(prompt) == "rubrics":
        return judge_answers.rubrics(prompt, {"concise": "no"})
    return judge_answers.auto(prompt)


def test_a_failing_judged_turn_shows_the_judges_reasons(
    house_run: str, writer: SpanWriter, switch_judge: type[SwitchJudge]
) -> None:
    switch_judge.answers = staticmethod(_answers)
    judge = {"judge_model": SwitchJudge.NAME, "num_samples": 1}
    document = {
        "criteria": {
            "hallucinations_v1": {"threshold": 0.9, "judge_model_options": judge},
            "rubric_based_final_response_quality_v1": {
                "threshold": 0.9, "judge_model_options": judge,
                "rubrics": [{"rubric_id": "concise",
                             "rubric_content": {"text_property": "At most one sentence."}}],
            },
        },
    }  # fmt: skip
    config = parse_config(document, available_metrics())
    scored = score(writer.connection, Selection(run_id=house_run), config, available_metrics())
    report = build_report(LocalReader(writer.connection), scoring_id=scored.scoring_id)

    text = render_terminal(report, width=120)
    assert "hallucinations_v1 0.50, needs ≥ 0.90" in text
    assert '✗ unsupported  "That is quite cosy." — scripted: unsupported' in text
    assert "✗ concise  scripted: no for concise" in text
    assert "Judges: 18 answers · 18 new calls, 0 from the cache" in text

    data = json.loads(to_json(report))
    usage = {u["metric"]: u for u in data["judges"]}
    assert usage["hallucinations_v1"]["calls"] == 12  # segment, then validate, per response
    assert data["judge_errors"] == 0
    junit = to_junit(report)
    assert "scripted: unsupported" in junit
    assert "scripted: no for concise" in junit
