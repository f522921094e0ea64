"""The judged metrics: ADK's (same names, criteria read as ADK reads them) and tracegrade's
own template judges, and how each is run.

ADK's registry of metric evaluators (`metric_evaluator_registry`) imports its Vertex AI
facade, which needs pandas and the Vertex SDK (`google-adk[eval]`); so the names are mapped
to evaluator classes here, imported only when used. tests/scoring/judging/test_metrics.py
holds the map to ADK's registry where the eval extra is installed.
"""

from __future__ import annotations

import importlib
import warnings
from dataclasses import dataclass
from typing import Any, Literal

from google.adk.evaluation import eval_metrics
from google.adk.evaluation.eval_config import EvalConfig, get_eval_metrics_from_config
from google.adk.evaluation.eval_metrics import BaseCriterion, EvalMetric
from pydantic import ValidationError

from tracegrade.errors import ConfigError

Mode = Literal["per_turn", "last_turn", "steps", "simulator", "vertex", "template"]


@dataclass(frozen=True)
class AdkJudged:
    module: str
    evaluator: str
    criterion: str
    """The class of `eval_metrics` the evaluator validates its criterion with."""
    mode: Mode

    def evaluator_class(self) -> Any:
        return getattr(
            importlib.import_module(f"google.adk.evaluation.{self.module}"), self.evaluator
        )

    def build(self, metric: EvalMetric) -> Any:
        """The evaluator for `metric`. ADK marks every evaluator class experimental and warns
        on first use; tracegrade chose them knowingly, so users are not told each run."""
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", r"\[EXPERIMENTAL\]", UserWarning)
            return self.evaluator_class()(metric)


ADK_JUDGED: dict[str, AdkJudged] = {
    "final_response_match_v2": AdkJudged(
        "final_response_match_v2", "FinalResponseMatchV2Evaluator", "LlmAsAJudgeCriterion",
        "per_turn"),
    "rubric_based_final_response_quality_v1": AdkJudged(
        "rubric_based_final_response_quality_v1", "RubricBasedFinalResponseQualityV1Evaluator",
        "RubricsBasedCriterion", "per_turn"),
    "rubric_based_tool_use_quality_v1": AdkJudged(
        "rubric_based_tool_use_quality_v1", "RubricBasedToolUseV1Evaluator",
        "RubricsBasedCriterion", "per_turn"),
    "rubric_based_multi_turn_trajectory_quality_v1": AdkJudged(
        "rubric_based_multi_turn_trajectory_evaluator", "RubricBasedMultiTurnTrajectoryEvaluator",
        "RubricsBasedCriterion", "last_turn"),
    "hallucinations_v1": AdkJudged(
        "hallucinations_v1", "HallucinationsV1Evaluator", "HallucinationsCriterion", "steps"),
    "per_turn_user_simulator_quality_v1": AdkJudged(
        "simulation.per_turn_user_simulator_quality_v1", "PerTurnUserSimulatorQualityV1",
        "LlmBackedUserSimulatorCriterion", "simulator"),
    "response_evaluation_score": AdkJudged(
        "response_evaluator", "ResponseEvaluator", "BaseCriterion", "vertex"),
    "safety_v1": AdkJudged("safety_evaluator", "SafetyEvaluatorV1", "BaseCriterion", "vertex"),
    "multi_turn_task_success_v1": AdkJudged(
        "multi_turn_task_success_evaluator", "MultiTurnTaskSuccessV1Evaluator", "BaseCriterion",
        "vertex"),
    "multi_turn_trajectory_quality_v1": AdkJudged(
        "multi_turn_trajectory_quality_evaluator", "MultiTurnTrajectoryQualityV1Evaluator",
        "BaseCriterion", "vertex"),
    "multi_turn_tool_use_quality_v1": AdkJudged(
        "multi_turn_tool_use_quality_evaluator", "MultiTurnToolUseQualityV1Evaluator",
        "BaseCriterion", "vertex"),
}  # fmt: skip
"""ADK 2.13's judged `PrebuiltMetrics`."""


def adk_eval_metric(metric: str, value: Any) -> EvalMetric:
    """The `EvalMetric` ADK makes of `criteria[metric]` (a threshold or an object)."""
    config = EvalConfig.model_validate({"criteria": {metric: value}})
    return next(m for m in get_eval_metrics_from_config(config) if m.metric_name == metric)


def validated_criterion(metric: str, value: Any, criterion_class: str) -> BaseCriterion:
    """The criterion as the metric's evaluator validates it; a `ConfigError` naming the
    field where ADK would only log the error and leave the metric not evaluated."""
    where = f"criteria.{metric}"
    try:
        eval_metric = adk_eval_metric(metric, value)
        kind: type[BaseCriterion] = getattr(eval_metrics, criterion_class)
        assert eval_metric.criterion is not None
        return kind.model_validate(eval_metric.criterion.model_dump())
    except ValidationError as exc:
        error = exc.errors()[0]
        path = ".".join(str(p) for p in error["loc"])
        raise ConfigError(
            f"{where}.{path}: {error['msg']}" if path else f"{where}: {error['msg']}"
        ) from None
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def judge_options(criterion: BaseCriterion) -> eval_metrics.JudgeModelOptions:
    options = getattr(criterion, "judge_model_options", None)
    return options if options is not None else eval_metrics.JudgeModelOptions()
