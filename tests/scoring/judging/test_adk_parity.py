"""ADK's judge metrics give ADK's numbers: for the same judge answers, tracegrade's scores
and statuses per turn and per case equal those of google-adk's own evaluators, run on ADK's
own invocations of the very same agent run.

The judge's samples disagree (ties, a majority each way), some answers cannot be read (a
label ADK does not know, a rubric answer with mismatched counts, a segmenter answer without
sentences), one call raises; rubrics come from the config, the case (typed and untyped) and
one turn; turns have intermediate text, parallel calls, and none.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.scoring.judging.adk_oracle import STATUS, Scores, adk_scores
from tests.support.judging import (
    AGENT,
    DisagreeingJudge,
    criteria,
    eval_set,
    recording_adk_invocations,
    write_case_files,
)
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.harness import RunOptions, run_eval
from tracegrade.scoring import Selection, load_scoring_config, score
from tracegrade.store import SpanWriter

pytestmark = costly  # every test here: see tests.support.tiers.costly


def _ours(writer: SpanWriter, scoring_id: str) -> Scores:
    rows = writer.connection.execute(
        "SELECT metric, case_id, turn_index, score, status FROM scores "
        "WHERE scoring_id = ? AND level IN ('turn', 'case') AND list_contains(?, metric)",
        [scoring_id, list(criteria("x"))],
    ).fetchall()
    return {(m, case, turn): (value, status) for m, case, turn, value, status in rows}


@pytest.mark.parametrize("intermediate", [False, True], ids=["final-only", "intermediate"])
def test_every_judge_metric_scores_as_adks_evaluator(
    intermediate: bool,
    monkeypatch: pytest.MonkeyPatch,
    captured: BlockingSpanProcessor,
    writer: SpanWriter,
    tmp_path: Path,
) -> None:
    config = {"criteria": criteria(DisagreeingJudge.NAME, intermediate=intermediate)}
    evalset, config_path = write_case_files(tmp_path, config)
    with recording_adk_invocations(monkeypatch) as recorded:
        run = run_eval(RunOptions(eval_sets=[str(evalset)], agent=AGENT))
    assert captured.force_flush()
    loaded = load_scoring_config(config_path)
    scored = score(writer.connection, Selection(run_id=run.run_id), loaded.config, loaded.specs)

    theirs = adk_scores(recorded, eval_set(), config["criteria"])
    ours = _ours(writer, scored.scoring_id)
    assert ours.keys() == theirs.keys()
    for key, (value, status) in theirs.items():
        assert ours[key][1] == status, key
        assert ours[key][0] == pytest.approx(value, abs=1e-9), key
    # Not vacuous: every outcome shows up, and scores between 0 and 1.
    statuses = {status for _, status in theirs.values()}
    assert statuses == set(STATUS.values())
    assert any(v is not None and 0 < v < 1 for v, _ in theirs.values())


def test_the_turn_rubric_quirk_and_the_case_mean_are_adks(
    monkeypatch: pytest.MonkeyPatch,
    captured: BlockingSpanProcessor,
    writer: SpanWriter,
    tmp_path: Path,
) -> None:
    """ADK parses every turn's answer against the last turn's rubrics (a rubric only the
    first turn has is dropped) and averages every rubric score of the case, not the turns'
    means: tracegrade's case score is ADK's where the two differ."""
    metric = "rubric_based_final_response_quality_v1"
    config = {"criteria": {metric: criteria(DisagreeingJudge.NAME)[metric]}}
    evalset, config_path = write_case_files(tmp_path, config)
    with recording_adk_invocations(monkeypatch) as recorded:
        run = run_eval(RunOptions(eval_sets=[str(evalset)], agent=AGENT))
    assert captured.force_flush()
    loaded = load_scoring_config(config_path)
    scored = score(writer.connection, Selection(run_id=run.run_id), loaded.config, loaded.specs)
    ours = _ours(writer, scored.scoring_id)
    theirs = adk_scores(recorded, eval_set(), config["criteria"])
    case, turns = (
        ours[(metric, "temperatures", None)][0],
        [ours[(metric, "temperatures", i)][0] for i in (0, 1)],
    )
    assert case == pytest.approx(theirs[(metric, "temperatures", None)][0])
    details = writer.connection.execute(
        "SELECT detail FROM scores WHERE scoring_id = ? AND metric = ? AND case_id = "
        "'temperatures' AND level = 'turn' ORDER BY turn_index",
        [scored.scoring_id, metric],
    ).fetchall()
    rubrics = [{r["id"] for r in json.loads(d[0])["rubrics"]} for d in details]
    assert "turn_units" not in rubrics[0]  # asked about, answered, dropped as ADK drops it
    assert None not in turns
