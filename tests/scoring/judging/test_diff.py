"""`diff` compares judged metrics: a case whose judged score fell, or that a judge no longer
evaluated, is reported, and a pass that became a fail on a judged metric is a regression."""

from __future__ import annotations

from pathlib import Path

from tests.support.judging import SwitchJudge, run_house
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.report import DiffTolerances, diff_runs, render_diff
from tracegrade.scoring import Selection, available_metrics, parse_config, score
from tracegrade.store import LocalReader, SpanWriter
from tracegrade.testing import judge_answers

pytestmark = costly  # every test here: see tests.support.tiers.costly

METRIC = "final_response_match_v2"
CRITERIA = {"criteria": {METRIC: {"threshold": 0.5, "judge_model_options": {
    "judge_model": SwitchJudge.NAME, "num_samples": 1}}}}  # fmt: skip


def _run_and_score(tmp_path: Path, writer: SpanWriter, captured: BlockingSpanProcessor) -> str:
    run_id = run_house(tmp_path)
    assert captured.force_flush()
    config = parse_config(CRITERIA, available_metrics())
    score(writer.connection, Selection(run_id=run_id), config, available_metrics())
    return run_id


def test_a_judged_score_that_falls_is_a_change_and_a_new_fail_a_regression(
    tmp_path: Path,
    captured: BlockingSpanProcessor,
    writer: SpanWriter,
    switch_judge: type[SwitchJudge],
) -> None:
    base = _run_and_score(tmp_path, writer, captured)

    def answers(prompt: str, sample: int) -> str:
        if "Turn on the kitchen light." in prompt:
            return judge_answers.final_response_match(False)
        if "Who are you?" in prompt:
            raise RuntimeError("judge down")
        return judge_answers.auto(prompt)

    switch_judge.answers = staticmethod(answers)
    new = _run_and_score(tmp_path, writer, captured)
    # Latency tolerance out of the way: the second run may be slower on a loaded machine.
    tolerances = DiffTolerances(latency_pct=1e9, latency_ms=1e9)
    diff = diff_runs(LocalReader(writer.connection), base, new, tolerances)
    changes = {c.case_id: [(x.kind, x.message) for x in c.changes] for c in diff.cases}
    assert ("score_down", f"{METRIC} 1.00 → 0.00") in changes["lights_on"]
    assert ("regressed", "verdict passed → failed") in changes["lights_on"]
    assert changes["who"] == [
        ("regressed", "verdict passed → not_evaluated"),
        ("score_down", f"{METRIC} 1.00 → not evaluated"),
    ]
    assert changes["temperatures"] == []
    assert diff.regressed
    assert f"{METRIC} 1.00 → not evaluated" in render_diff(diff)
