"""One judged metric, ready to run, and the conversations it judges.

A `MetricPlan` is a configured judged metric with its criterion validated as its ADK
evaluator validates it, its judge resolved and its request config built (ADK's
`build_judge_request_config`). A `Group` is one conversation: a case repeat of an eval run,
or a sampled turn of traffic with the turns before it in its session.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from google.adk.evaluation.eval_case import Invocation
from google.adk.evaluation.eval_metrics import BaseCriterion, EvalMetric
from google.adk.evaluation.llm_as_judge_utils import build_judge_request_config
from google.genai import types

from tracegrade.scoring.judging.calls import Answer
from tracegrade.scoring.judging.invocations import actual_invocation
from tracegrade.scoring.judging.metrics import AdkJudged, Mode, judge_options
from tracegrade.scoring.judging.resolve import Judge
from tracegrade.scoring.judging.templates import PromptTemplate
from tracegrade.scoring.judging.turns import TurnData


@dataclass(frozen=True)
class MetricPlan:
    name: str
    mode: Mode
    criterion: BaseCriterion
    options: dict[str, Any]
    """The criterion as written (a template judge's extra keys reach its template)."""
    judge: Judge | None
    """None for Vertex AI metrics, which ADK's facade judges."""
    adk: AdkJudged | None = None
    template: PromptTemplate | None = None
    rates_conversation: bool = False

    @property
    def num_samples(self) -> int:
        return judge_options(self.criterion).num_samples

    @property
    def request_config(self) -> types.GenerateContentConfig:
        return build_judge_request_config(judge_options(self.criterion).judge_model_config)

    @property
    def judge_name(self) -> str:
        return self.judge.name if self.judge else "vertex-ai"

    def evaluator(self, judge_name: str, parallelism: int | None = None) -> Any:
        """A fresh ADK evaluator of this metric whose judge is `judge_name` (a routed name);
        `parallelism` only schedules its calls (no prompt or score depends on it)."""
        assert self.adk is not None
        criterion = self.criterion.model_copy(deep=True)
        options = getattr(criterion, "judge_model_options", None)
        if options is not None:
            options.judge_model = judge_name
            options.parallelism_limit = max(options.parallelism_limit, parallelism or 1)
        metric = EvalMetric(
            metric_name=self.name, threshold=criterion.threshold, criterion=criterion
        )
        return self.adk.build(metric)


@dataclass
class Group:
    """One conversation: `turns` in order, of which `targets` are scored."""

    turns: list[TurnData]
    targets: list[TurnData]
    sample_key: int = 0
    _invocations: dict[str, Invocation] = field(default_factory=dict)

    def invocation(self, turn: TurnData) -> Invocation:
        """The turn as ADK's invocation (no rubrics), built once for every metric."""
        if turn.turn_id not in self._invocations:
            self._invocations[turn.turn_id] = actual_invocation(turn)
        return self._invocations[turn.turn_id]

    def rubrics(self, turn: TurnData) -> list[dict[str, Any]]:
        """The eval case's rubrics, then the turn's (LocalEvalService's order)."""
        expected = turn.expected
        return [*expected.case_rubrics, *expected.rubrics] if expected else []

    def history(self, turn: TurnData) -> list[TurnData]:
        """The conversation up to and including `turn`."""
        return self.turns[: self.turns.index(turn) + 1]


@dataclass
class Results:
    """What a metric's run over a group produced: every answer it used, and turns left
    without one, each with the reason."""

    answers: list[Answer] = field(default_factory=list)

    def skip(self, plan: MetricPlan, turns: list[TurnData], outcome: str, reason: str) -> None:
        for turn in turns:
            self.answers.append(placeholder(plan, turn.turn_id, outcome, reason))


def placeholder(plan: MetricPlan, turn_id: str, outcome: str, reason: str) -> Answer:
    """A turn's row in `scored_judgements` that no judge answered, saying why."""
    return Answer(plan.name, turn_id, plan.judge_name, "", "", "", 0, "none", outcome,
                  error=reason)  # fmt: skip
