"""The gate: case repeats into case verdicts (repeat policy), errors apart, an exit code.

A case repeat with an errored turn is an error, not a failure; it is left out of the
repeat policy and counted against `max_error_rate` instead. A repeat fails when any gating
metric fails at any level, and passes when one passed and none failed (ADK's rule).
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

    @property
    def error_rate(self) -> float:
        return self.errored / self.units if self.units else 0.0

    @property
    def exit_code(self) -> ExitCode:
        if self.error_rate > self.max_error_rate:
            return ExitCode.ERRORS_OVER_LIMIT
        failed = any(c.verdict == "failed" for c in self.cases) or self.failed_run_metrics
        if failed or (self.run_id is None and self.failed_turns):
            return ExitCode.GATE_FAILED
        return ExitCode.OK

    @property
    def verdict(self) -> str:
        return {ExitCode.OK: "passed", ExitCode.GATE_FAILED: "failed"}.get(self.exit_code, "errors")


_REPEATS = """
SELECT run_id, eval_set_id, case_id, repeat,
       bool_or(status = 'error') AS errored,
       bool_or(status = 'failed') AS failed,
       bool_or(status = 'passed') AS passed,
       list(DISTINCT metric ORDER BY metric) FILTER (status = 'failed') AS failed_metrics
FROM scores
WHERE scoring_id = ? AND level = 'case'
GROUP BY ALL
ORDER BY eval_set_id, case_id, repeat
"""


def decide(
    connection: duckdb.DuckDBPyConnection,
    scoring_id: str,
    selection: Selection,
    config: ScoringConfig,
) -> ScoringResult:
    repeats = connection.execute(_REPEATS, [scoring_id]).fetchall()
    cases = _cases(repeats, config)
    turns, errored_turns, failed_turns = connection.execute(
        "SELECT count(*), count(*) FILTER (is_error), "
        "(SELECT count(DISTINCT turn_id) FROM scores WHERE scoring_id = ? AND level = 'turn' "
        "AND status = 'failed') FROM scored_turns",
        [scoring_id],
    ).fetchall()[0]
    failed_run = [
        row[0]
        for row in connection.execute(
            "SELECT metric FROM scores WHERE scoring_id = ? AND level = 'run' "
            "AND status = 'failed' ORDER BY metric",
            [scoring_id],
        ).fetchall()
    ]
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
    )


def _cases(repeats: list[tuple], config: ScoringConfig) -> list[CaseResult]:  # type: ignore[type-arg]
    grouped: dict[tuple[str, str, str], list[tuple]] = {}  # type: ignore[type-arg]
    for row in repeats:
        grouped.setdefault((row[0], row[1], row[2]), []).append(row)
    return [_case(key, rows, config) for key, rows in grouped.items()]


def _case(key: tuple[str, str, str], rows: list[tuple], config: ScoringConfig) -> CaseResult:  # type: ignore[type-arg]
    errored = sum(1 for r in rows if r[4])
    failed = sum(1 for r in rows if not r[4] and r[5])
    passed = sum(1 for r in rows if not r[4] and not r[5] and r[6])
    judged = passed + failed
    if judged:
        verdict = "passed" if config.repeat_policy.passes(passed, judged) else "failed"
    else:
        verdict = "error" if errored else "not_evaluated"
    failed_metrics = sorted({m for r in rows if not r[4] for m in (r[7] or [])})
    return CaseResult(*key, len(rows), passed, failed, errored, verdict, failed_metrics)
