"""per_turn_user_simulator_quality_v1 on a played scenario: tracegrade's scores equal those
of ADK's own evaluator run on ADK's invocations of the same conversation, with the same
judge answers."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any, ClassVar

import pytest
from google.adk.evaluation.conversation_scenarios import ConversationScenario
from google.adk.evaluation.eval_config import EvalConfig, get_eval_metrics_from_config
from google.adk.evaluation.simulation.per_turn_user_simulator_quality_v1 import (
    PerTurnUserSimulatorQualityV1,
)
from google.adk.models.registry import LLMRegistry

from tests.harness.test_scenarios import AGENT, GOAL_REPLIES, SCENARIOS
from tests.support.judging import recording_adk_invocations
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.harness import RunOptions, run_eval
from tracegrade.harness.experimental import quiet_experimental
from tracegrade.scoring import Selection, available_metrics, parse_config, score
from tracegrade.scoring.judging import JudgeSettings
from tracegrade.store import SpanWriter
from tracegrade.testing import ScriptedJudge, ScriptedUser, judge_answers

pytestmark = costly  # every test here: see tests.support.tiers.costly

METRIC = "per_turn_user_simulator_quality_v1"
Answer = Callable[[str, int], "str | None"]


class QualityJudge(ScriptedJudge):
    """The judge both sides call by name; it answers with `QualityJudge.script`."""

    script: ClassVar[Answer] = staticmethod(lambda prompt, sample: None)
    answer: Any = None

    @classmethod
    def supported_models(cls) -> list[str]:
        return ["quality-judge"]

    def model_post_init(self, context: Any) -> None:
        self.answer = lambda prompt, sample: QualityJudge.script(prompt, sample)


LLMRegistry.register(QualityJudge)


def _verdict(invalid: set[str], garbled: set[str] = frozenset()) -> Answer:  # type: ignore[assignment]
    """Valid, except for the generated messages named (the stop check's is </finished>)."""

    def answer(prompt: str, sample: int) -> str:
        generated = judge_answers.generated_user_response(prompt)
        if generated in garbled:
            return "I cannot decide."
        return judge_answers.user_simulator(generated not in invalid)

    return answer


def _samples(prompt: str, sample: int) -> str:
    """Three samples per prompt disagree: valid, invalid, valid (the majority is valid)."""
    return judge_answers.user_simulator(sample != 1)


CASES = {
    "all_valid": (_verdict(set()), 1),
    "second_turn_invalid": (_verdict({"What is in my cart?"}), 1),
    "should_not_have_stopped": (_verdict({"</finished>"}), 1),
    "unreadable_answer": (_verdict(set(), {"What is in my cart?"}), 1),
    "samples_disagree": (_samples, 3),
    "samples_tie": (lambda p, s: judge_answers.user_simulator(s == 0), 2),
}


def _criteria(samples: int, simulator: str) -> dict[str, Any]:
    options = {"judge_model": "quality-judge", "num_samples": samples}
    return {
        "criteria": {METRIC: {"threshold": 0.5, "judge_model_options": options}},
        "user_simulator_config": {"model": simulator},
    }


@pytest.mark.parametrize("name", list(CASES))
def test_scores_equal_adks_evaluator_on_the_same_conversation(
    name: str,
    captured: BlockingSpanProcessor,
    writer: SpanWriter,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    answer, samples = CASES[name]
    monkeypatch.setattr(QualityJudge, "script", staticmethod(answer))
    simulator = ScriptedUser.from_replies(GOAL_REPLIES).register(f"q-user-{uuid.uuid4().hex[:8]}")
    raw = _criteria(samples, simulator)
    with recording_adk_invocations(monkeypatch) as recorded:
        result = run_eval(
            RunOptions(eval_sets=[f"{SCENARIOS}:fill_the_cart"], agent=AGENT, criteria=raw)
        )
    assert captured.force_flush()
    specs = available_metrics(())
    scored = score(
        writer.connection, Selection(run_id=result.run_id), parse_config(raw, specs), specs
    )
    rows = writer.connection.execute(
        "SELECT level, turn_index, score FROM scores WHERE scoring_id = ? AND metric = ? "
        "AND level IN ('turn', 'case') ORDER BY level DESC, turn_index",
        [scored.scoring_id, METRIC],
    ).fetchall()

    adk = _adk_result(recorded["Add two apples"], samples)
    adk_turns = [r.score if r.score is not None else 0.0 for r in adk.per_invocation_results]
    assert rows == [
        *(("turn", i, s) for i, s in enumerate(adk_turns)),
        ("case", None, adk.overall_score),
    ]


def test_a_static_case_is_not_rated(captured: BlockingSpanProcessor, writer: SpanWriter) -> None:
    QualityJudge.script = staticmethod(_verdict(set()))
    simulator = ScriptedUser.from_replies(GOAL_REPLIES).register(f"q-user-{uuid.uuid4().hex[:8]}")
    raw = _criteria(1, simulator)
    result = run_eval(RunOptions(eval_sets=[str(SCENARIOS)], agent=AGENT, criteria=raw))
    assert captured.force_flush()
    specs = available_metrics(())
    scored = score(
        writer.connection, Selection(run_id=result.run_id), parse_config(raw, specs), specs
    )
    rows = writer.connection.execute(
        "SELECT case_id = 'fill_the_cart', list_distinct(list(status)), "
        "list_distinct(list(detail->>'reason') FILTER (status = 'not_evaluated')) "
        "FROM scores WHERE scoring_id = ? AND metric = ? AND level = 'turn' GROUP BY ALL "
        "ORDER BY ALL",
        [scored.scoring_id, METRIC],
    ).fetchall()
    # The static cases' turns get no score, and say why (ADK: not evaluated there).
    reason = "no conversation scenario: it rates ADK's user simulator, which only "
    static, scenario = rows
    assert static[:2] == (False, ["not_evaluated"])
    assert [r[: len(reason)] for r in static[2]] == [reason]
    assert scenario[0] is True
    assert "not_evaluated" not in scenario[1]


def _adk_result(invocations: list[Any], samples: int) -> Any:
    config = EvalConfig.model_validate(_criteria(samples, "unused"))
    metric = next(m for m in get_eval_metrics_from_config(config) if m.metric_name == METRIC)
    scenario = ConversationScenario.model_validate(
        {"starting_prompt": "Add two apples", "conversation_plan": _plan()}
    )
    with quiet_experimental():
        evaluator = PerTurnUserSimulatorQualityV1(metric)
    return asyncio.run(evaluator.evaluate_invocations(invocations, None, scenario))


def _plan() -> str:
    import json

    data = json.loads(SCENARIOS.read_text())
    return str(data["eval_cases"][0]["conversation_scenario"]["conversation_plan"])


def test_a_failing_judge_leaves_the_conversation_unscored_as_a_judge_error(
    captured: BlockingSpanProcessor, writer: SpanWriter, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ADK's evaluator lets the judge's exception escape: the metric is not evaluated."""

    def down(prompt: str, sample: int) -> str:
        raise ConnectionError("judge down")

    monkeypatch.setattr(QualityJudge, "script", staticmethod(down))
    simulator = ScriptedUser.from_replies(GOAL_REPLIES).register(f"q-user-{uuid.uuid4().hex[:8]}")
    raw = _criteria(1, simulator)
    result = run_eval(
        RunOptions(eval_sets=[f"{SCENARIOS}:fill_the_cart"], agent=AGENT, criteria=raw)
    )
    assert captured.force_flush()
    specs = available_metrics(())
    config = parse_config(raw, specs)
    scored = score(
        writer.connection, Selection(run_id=result.run_id), config, specs, JudgeSettings(retries=0)
    )
    rows = writer.connection.execute(
        "SELECT turn_index, score, detail->>'judge_error' FROM scores "
        "WHERE scoring_id = ? AND metric = ? AND level = 'turn' ORDER BY turn_index",
        [scored.scoring_id, METRIC],
    ).fetchall()
    assert rows == [(0, None, "true"), (1, None, "true")]
    assert scored.judge_errors == 2
