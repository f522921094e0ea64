"""The gate: the scoring's case verdicts and errors into one verdict and exit code.

Case verdicts under the repeat policy are decided in SQL (queries/scoring/03_levels.sql):
a case repeat with an errored turn is an error, not a failure; it is left out of the
repeat policy and counted against `max_error_rate` instead. So are judged metrics' turns a
judge could not evaluate (its calls failed, or its answers could not be read): never a
pass or a fail, they count as judge errors against the same `max_error_rate`.

The order the gate looks in: a run with turns that never ran is incomplete (5); then
errors (or judge errors) over the budget (3); then failures (1); then cases with no
criterion evaluated (4, unless allowed); else 0. Whatever stops a metric from scoring a
turn (a judge that failed, arguments not captured, no expectation) is its score NULL with
a `reason` in its detail: the same path gives the reasons named for exit 4.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import duckdb

from tracegrade.exit_codes import ExitCode
from tracegrade.scoring.criteria import ScoringConfig
from tracegrade.scoring.selection import Selection


@dataclass(frozen=True)
class CaseResult:
    run_id: str
    eval_set_id: str
    case_id: str
    repeats: int
    passed_repeats: int
    failed_repeats: int
    errored_repeats: int
    verdict: str
    """passed, failed, error (every repeat errored), not_evaluated or not_run."""
    failed_metrics: list[str] = field(default_factory=list)

    @property
    def flaky(self) -> bool:
        """Passed some of its judged repeats, not all."""
        return 0 < self.passed_repeats < self.passed_repeats + self.failed_repeats

    @property
    def pass_at_k(self) -> bool:
        """At least one repeat passed."""
        return self.passed_repeats > 0


@dataclass(frozen=True)
class ScoringResult:
    scoring_id: str
    run_id: str | None
    turns: int
    errored: int
    """Errored case repeats (eval runs) or turns (traffic)."""
    units: int
    """All case repeats (eval runs) or turns (traffic)."""
    cases: list[CaseResult]
    failed_run_metrics: list[str]
    failed_turns: int
    max_error_rate: float
    turns_not_run: int = 0
    """Turns of the eval run's plan that were never recorded (the run was stopped)."""
    not_evaluated: dict[str, list[str]] = field(default_factory=dict)
    """Gating metrics (or metrics left out) that did not evaluate something, and why."""
    allow_not_evaluated: bool = False
    judge_errors: int = 0
    """Judged turns (of a judged metric) a judge could not evaluate."""
    judged: int = 0
    """Turns judged metrics were asked to judge."""
    judge_errored: set[tuple[str, str]] = field(default_factory=set)
    """Cases (eval set, case) a judge error left without a gating score: errors, counted
    against `max_error_rate` (as judge errors), not cases nothing could evaluate."""

    @property
    def error_rate(self) -> float:
        return self.errored / self.units if self.units else 0.0

    @property
    def judge_error_rate(self) -> float:
        return self.judge_errors / self.judged if self.judged else 0.0

    @property
    def exit_code(self) -> ExitCode:
        if self.turns_not_run:
            return ExitCode.INCOMPLETE
        if max(self.error_rate, self.judge_error_rate) > self.max_error_rate:
            return ExitCode.ERRORS_OVER_LIMIT
        failed = any(c.verdict == "failed" for c in self.cases) or self.failed_run_metrics
        if failed or (self.run_id is None and self.failed_turns):
            return ExitCode.GATE_FAILED
        if self.unevaluated_cases and not self.allow_not_evaluated:
            return ExitCode.NOT_EVALUATED
        return ExitCode.OK

    @property
    def unevaluated_cases(self) -> list[CaseResult]:
        """Cases no gating criterion evaluated, for a reason other than a judge error: not
        a pass."""
        return [
            c
            for c in self.cases
            if c.verdict == "not_evaluated" and (c.eval_set_id, c.case_id) not in self.judge_errored
        ]

    @property
    def verdict(self) -> str:
        return VERDICTS[self.exit_code]


VERDICTS = {
    ExitCode.OK: "passed",
    ExitCode.GATE_FAILED: "failed",
    ExitCode.ERRORS_OVER_LIMIT: "errors",
    ExitCode.NOT_EVALUATED: "not_evaluated",
    ExitCode.INCOMPLETE: "incomplete",
}
"""The scoring's verdict (stored in `scorings`) for each exit code the gate gives."""


# These read the tables of the scoring just made (queries/scoring/03_levels.sql).
_CASES = """
SELECT run_id, eval_set_id, case_id, repeats, passed_repeats, failed_repeats, errored_repeats,
       verdict, failed_metrics
FROM case_outcomes
ORDER BY eval_set_id, case_id
"""
_TURNS = """
SELECT (SELECT count(*) FROM scored_turns),
       (SELECT count(*) FROM scored_turns WHERE is_error),
       (SELECT count(DISTINCT turn_id) FROM level_turn WHERE status = 'failed')
"""
_FAILED_RUN_METRICS = "SELECT metric FROM level_run WHERE status = 'failed' ORDER BY metric"
_TURNS_NOT_RUN = "SELECT count(*) FROM turns_not_run"
_NOT_EVALUATED = """
SELECT r.metric, r.detail->'reasons'
FROM level_run r JOIN scoring_criteria c USING (metric)
WHERE c.gating AND (r.detail->>'not_evaluated')::INTEGER > 0
ORDER BY r.metric
"""
NO_CRITERION = "no criterion gates the run"
# Cases with a gating turn a judge failed to evaluate (detail.judge_error, below).
_JUDGE_ERRORED = """
SELECT DISTINCT l.eval_set_id, l.case_id
FROM level_turn l JOIN scoring_criteria c USING (metric)
WHERE c.gating AND l.case_id IS NOT NULL AND l.detail->>'judge_error' = 'true'
"""
# detail.judge_error: set by judged metrics' scorers (tg_judge_detail) on the turns judged.
_JUDGED = """
SELECT count(*) FILTER (detail->>'judge_error' IS NOT NULL),
       count(*) FILTER (detail->>'judge_error' = 'true')
FROM level_turn WHERE NOT is_error
"""


def decide(
    connection: duckdb.DuckDBPyConnection,
    scoring_id: str,
    selection: Selection,
    config: ScoringConfig,
) -> ScoringResult:
    cases = [CaseResult(*row) for row in connection.execute(_CASES).fetchall()]
    turns, errored_turns, failed_turns = connection.execute(_TURNS).fetchall()[0]
    failed_run = [row[0] for row in connection.execute(_FAILED_RUN_METRICS).fetchall()]
    judged, judge_errors = connection.execute(_JUDGED).fetchall()[0]
    eval_run = selection.run_id is not None
    return ScoringResult(
        scoring_id=scoring_id,
        run_id=selection.run_id,
        turns=turns,
        errored=sum(c.errored_repeats for c in cases) if eval_run else errored_turns,
        units=sum(c.repeats for c in cases) if eval_run else turns,
        cases=cases,
        failed_run_metrics=failed_run,
        failed_turns=failed_turns,
        max_error_rate=config.max_error_rate,
        turns_not_run=connection.execute(_TURNS_NOT_RUN).fetchall()[0][0],
        not_evaluated=_not_evaluated(connection, config),
        allow_not_evaluated=config.allow_not_evaluated,
        judge_errors=judge_errors,
        judged=judged,
        judge_errored=set(connection.execute(_JUDGE_ERRORED).fetchall()),
    )


def _not_evaluated(
    connection: duckdb.DuckDBPyConnection, config: ScoringConfig
) -> dict[str, list[str]]:
    """Each metric that left something unevaluated, and why: the criteria left out (an
    unsupported metric, one not applicable), then gating metrics' turns without a score."""
    found = {metric: [reason] for metric, reason in config.not_evaluated.items()}
    for metric, reasons in connection.execute(_NOT_EVALUATED).fetchall():
        found[metric] = json.loads(reasons)
    if not config.criteria:
        found.setdefault("(none)", [NO_CRITERION])
    return found
