"""Judges made of a prompt template and a SQL scorer: tracegrade's task_completion and
tool_argument_grounding, and one of your own dropped into a --metrics folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.judging import SwitchJudge
from tests.support.tiers import costly
from tracegrade.errors import ConfigError
from tracegrade.scoring import Selection, available_metrics, parse_config, score
from tracegrade.store import SpanWriter
from tracegrade.testing import judge_answers

pytestmark = costly  # every test here: see tests.support.tiers.costly

JUDGE = {"judge_model": SwitchJudge.NAME, "num_samples": 3}


def _scores(
    writer: SpanWriter, run_id: str, criteria: dict[str, Any], dirs: list[Path] | None = None
) -> dict[tuple[str, int], tuple[Any, str, dict[str, Any]]]:
    specs = available_metrics(dirs or [])
    config = parse_config({"criteria": criteria}, specs)
    scored = score(writer.connection, Selection(run_id=run_id), config, specs)
    (metric,) = criteria
    rows = writer.connection.execute(
        "SELECT case_id, turn_index, score, status, detail FROM scores "
        "WHERE scoring_id = ? AND metric = ? AND level = 'turn'",
        [scored.scoring_id, metric],
    ).fetchall()
    return {(c, t): (s, st, json.loads(d) if d else {}) for c, t, s, st, d in rows}


def test_tool_argument_grounding_rates_every_argument(
    house_run: str, writer: SpanWriter, switch_judge: type[SwitchJudge]
) -> None:
    flagged = "call 2: set_light.room"
    switch_judge.answers = staticmethod(
        lambda prompt, sample: judge_answers.verdicts(
            prompt, {flagged: "no" if sample < 2 else "yes"}
        )
    )
    scores = _scores(
        writer,
        house_run,
        {"tool_argument_grounding": {"threshold": 1.0, "judge_model_options": JUDGE}},
    )
    value, status, detail = scores[("all_off", 0)]
    assert (value, status) == (0.75, "failed")
    assert [a["key"] for a in detail["arguments"]] == [
        "call 1: set_light.room", "call 1: set_light.on", flagged, "call 2: set_light.on"
    ]  # fmt: skip
    assert detail["rationale"] == "scripted: no"
    assert scores[("lights_on", 0)][:2] == (1.0, "passed")
    assert ("who", 0) not in scores  # no tool arguments: nothing to judge
    prompt = next(c.prompt for j in switch_judge.instances for c in j.calls if flagged in c.prompt)
    assert 'set_light({"room": "bedroom", "on": false})' in prompt
    assert "Use your tools to run the house." in prompt  # the agent's instructions


def test_task_completion_rates_the_conversation_at_its_last_turn(
    house_run: str, writer: SpanWriter, switch_judge: type[SwitchJudge]
) -> None:
    switch_judge.answers = staticmethod(
        lambda prompt, sample: judge_answers.verdicts(prompt, {"message 2": "no"})
    )
    scores = _scores(
        writer, house_run, {"task_completion": {"threshold": 1.0, "judge_model_options": JUDGE}}
    )
    first, last = scores[("temperatures", 0)], scores[("temperatures", 1)]
    assert first[:2] == (None, "not_evaluated")
    assert first[2]["reason"] == "a multi-turn judge rates the conversation at its last turn"
    assert last[:2] == (0.5, "failed")
    assert [t["key"] for t in last[2]["tasks"]] == ["message 1", "message 2"]
    prompt = switch_judge.instances[0].calls[0].prompt
    assert "what the user asked for in message 1" in prompt


def test_task_completion_takes_its_tasks_from_the_criterion(
    house_run: str, writer: SpanWriter, switch_judge: type[SwitchJudge]
) -> None:
    criterion = {"threshold": 1.0, "judge_model_options": JUDGE, "tasks": ["Report both rooms."]}
    scores = _scores(writer, house_run, {"task_completion": criterion})
    assert scores[("temperatures", 1)][2]["tasks"][0]["key"] == "task 1"
    prompts = [c.prompt for j in switch_judge.instances for c in j.calls]
    assert prompts
    assert all('"task": "Report both rooms."' in p for p in prompts)


def test_a_judge_of_your_own_is_a_template_and_a_sql_file(
    house_run: str, writer: SpanWriter, switch_judge: type[SwitchJudge], tmp_path: Path
) -> None:
    (tmp_path / "polite.prompt").write_text(
        'Is this answer polite? Answer JSON {"polite": true|false}.\n{{ final_text }}\n'
    )
    (tmp_path / "polite.sql").write_text(
        "-- metric: polite\n-- better: higher\n-- judge: polite.prompt\n"
        "-- One row per turn: 1 when most samples call the answer polite.\n"
        "SELECT turn_id, avg((verdicts->>'polite')::BOOLEAN::INT) AS score, NULL::JSON AS detail\n"
        "FROM scored_judgements WHERE metric = 'polite' AND outcome = 'answered' GROUP BY turn_id\n"
    )
    switch_judge.answers = staticmethod(
        lambda prompt, sample: json.dumps({"polite": "Sleep well" in prompt})
    )
    criteria = {"polite": {"threshold": 0.5, "judge_model_options": JUDGE}}
    scores = _scores(writer, house_run, criteria, [tmp_path])
    assert scores[("all_off", 0)][:2] == (1.0, "passed")
    assert scores[("lights_on", 0)][:2] == (0.0, "failed")


def test_a_template_error_names_the_file_and_line(
    house_run: str, writer: SpanWriter, switch_judge: type[SwitchJudge], tmp_path: Path
) -> None:
    (tmp_path / "broken.prompt").write_text("Fine line.\n{{ final_txt }}\n")
    (tmp_path / "broken.sql").write_text(
        "-- metric: broken\n-- judge: broken.prompt\nSELECT turn_id, NULL::DOUBLE AS score, "
        "NULL::JSON AS detail FROM scored_judgements\n"
    )
    with pytest.raises(ConfigError, match=r"broken\.prompt: 'final_txt' is undefined"):
        _scores(writer, house_run, {"broken": {"threshold": 0.5, "judge_model_options": JUDGE}},
                [tmp_path])  # fmt: skip
