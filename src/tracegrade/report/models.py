"""The run report: what one scoring of one eval run found, case by case and turn by turn.

These models are the JSON report (`to_json`): field order is the key order, and every list
is sorted by the builder, so two reports of the same data are byte-identical and a
`git diff` of two runs' reports shows only what changed.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tracegrade.report.judges import JudgeUsage
from tracegrade.report.simulator import SimulatorUsage

Verdict = Literal["passed", "failed", "error", "not_evaluated", "not_run"]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ErrorInfo(_Model):
    type: str | None = Field(description="exception class or error code, e.g. RuntimeError")
    message: str | None


class ToolCall(_Model):
    name: str
    args: Any = Field(description="the arguments as JSON; null when they were not captured")
    args_captured: bool
    error: ErrorInfo | None = None


class MetricScore(_Model):
    metric: str
    score: float | None = Field(description="null: not evaluated, or the turn errored")
    threshold: float | None
    status: str = Field(
        description="passed, failed, informational, not_evaluated, not_applicable (needs "
        "expected turns; a scenario case has none) or error"
    )
    gating: bool
    detail: Any = Field(default=None, description="the scorer's detail JSON")


class TurnReport(_Model):
    turn_index: int
    turn_id: str
    user_text: str | None
    final_text: str | None
    reference_text: str | None = Field(description="the eval set's expected final response")
    tool_calls: list[ToolCall]
    scores: list[MetricScore]
    latency_ms: float | None
    input_tokens: int | None
    output_tokens: int | None
    total_tokens: int | None
    cost_usd: float | None = Field(description="null when any model call was unpriced")
    models: list[str]
    error: ErrorInfo | None


class RepeatReport(_Model):
    repeat: int
    verdict: Verdict
    scores: list[MetricScore] = Field(description="case-level scores of this repeat")
    turns: list[TurnReport]


class CaseReport(_Model):
    eval_set_id: str
    case_id: str
    verdict: Verdict
    repeats: int
    passed_repeats: int
    failed_repeats: int
    errored_repeats: int
    flaky: bool = Field(description="passed some judged repeats, not all")
    pass_at_k: bool = Field(description="at least one of the k repeats passed")
    failed_metrics: list[str]
    repeat_results: list[RepeatReport]


class RunMetric(_Model):
    """One metric over every turn of the run, with the budgets it was held to."""

    metric: str
    gating: bool
    status: str
    mean: float | None
    p50: float | None
    p95: float | None
    max: float | None
    evaluated: int
    errored: int
    failed_turns: int = Field(description="turns over the metric's per-turn bound")
    breached: list[str] = Field(description="each budget broken, in words")
    not_evaluated: int = Field(default=0, description="turns it gave no score, errors aside")
    not_evaluated_reasons: list[str] = Field(
        default_factory=list, description="why (arguments not captured, no expectation...)"
    )


class Totals(_Model):
    turns: int
    errored_turns: int
    latency_p50_ms: float | None = Field(description="over turns that did not error")
    latency_p95_ms: float | None
    input_tokens: int | None
    output_tokens: int | None
    total_tokens: int | None
    cost_usd: float | None = Field(description="sum over priced turns; null if none was")
    priced_turns: int


class EvalSetInfo(_Model):
    eval_set_id: str
    path: str | None
    sha256: str | None
    cases: int | None


class RunInfo(_Model):
    run_id: str
    started_at: str | None
    agent: str | None
    models: list[str]
    eval_sets: list[EvalSetInfo]
    repeats: int | None
    parallel: int | None
    git_commit: str | None
    adk_version: str | None
    tracegrade_version: str | None = Field(description="the tracegrade that ran the eval")


class Criterion(_Model):
    metric: str
    better: Literal["higher", "lower"] | None
    threshold: float | None
    max: float | None
    p50: float | None
    p95: float | None


class ScoringInfo(_Model):
    scoring_id: str
    scored_at: str | None
    tracegrade_version: str | None = Field(description="the tracegrade that scored it")
    criteria: list[Criterion]
    not_evaluated: dict[str, str] = Field(description="configured metrics left out, and why")
    repeat_policy: dict[str, Any]
    max_error_rate: float | None
    allow_not_evaluated: bool = Field(
        default=False, description="cases with no criterion evaluated did not fail the gate"
    )


class RunReport(_Model):
    run: RunInfo
    scoring: ScoringInfo
    verdict: str = Field(
        description="passed, failed, errors, not_evaluated or incomplete (see the exit codes)"
    )
    exit_code: int
    error_rate: float | None = Field(description="errored case repeats / all case repeats")
    errored_repeats: int
    total_repeats: int
    not_run_repeats: int = Field(
        default=0, description="case repeats the run set out to replay and never did"
    )
    cases: list[CaseReport] = Field(description="by eval set, in the run's order, then case id")
    metrics: list[RunMetric]
    totals: Totals
    judges: list[JudgeUsage] = Field(
        default_factory=list, description="each judged metric's judge: answers, calls, cost"
    )
    judge_errors: int = Field(
        default=0, description="judged turns not evaluated because the judge failed"
    )
    simulator: SimulatorUsage | None = Field(
        default=None,
        description="ADK's user simulator in conversation scenarios: conversations, how they "
        "ended, its calls and tokens (not the agent's); null without scenarios",
    )
