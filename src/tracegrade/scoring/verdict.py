"""The gate: the scoring's case verdicts and errors into one verdict and exit code.

Case verdicts under the repeat policy are decided in SQL (queries/scoring/03_levels.sql):
a case repeat with an errored turn is an error, not a failure; it is left out of the
repeat policy and counted against `max_error_rate` instead. So are judged metrics' turns a
judge could not evaluate (its calls failed, or its answers could not be read): never a
pass or a fail, they count as judge errors against the same `max_error_rate`.
"""

from __future__ import annotations

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
    """passed, failed, error (every repeat errored) or not_evaluated."""
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
    judge_errors: int = 0
    """Judged turns (of a judged metric) a judge could not evaluate."""
    judged: int = 0
    """Turns judged metrics were asked to judge."""

    @property
    def error_rate(self) -> float:
        return self.errored / self.units if self.units else 0.0

    @property
    def judge_error_rate(self) -> float:
        return self.judge_errors / self.judged if self.judged else 0.0

    @property
    def exit_code(self) -> ExitCode:
        if max(self.error_rate, self.judge_error_rate) > self.max_error_rate:
            return ExitCode.ERRORS_OVER_LIMIT
        failed = any(c.verdict == "failed" for c in self.cases) or self.failed_run_metrics
        if failed or (self.run_id is None and self.failed_turns):
            return ExitCode.GATE_FAILED
        return ExitCode.OK

    @property
    def verdict(self) -> str:
        return {ExitCode.OK: "passed", ExitCode.GATE_FAILED: "failed"}.get(self.exit_code, "errors")


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
        judge_errors=judge_errors,
        judged=judged,
    )
