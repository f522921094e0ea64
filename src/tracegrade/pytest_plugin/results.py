"""What tests get: one eval case (`case_result`) or the whole run (`eval_run`).

Both wrap the run report `tracegrade run` prints (`tracegrade.report`), so a test sees the
same cases, scores and findings as the terminal summary, the JSON report and JUnit.
"""

from __future__ import annotations

from dataclasses import dataclass

from tracegrade.pytest_plugin import messages
from tracegrade.report import CaseReport, RunReport


class EvalCaseFailed(AssertionError):
    """An eval case gave a wrong answer, or a run broke a budget."""


# pytest prints the exception's qualified name: the short public one reads better.
EvalCaseFailed.__module__ = "tracegrade.pytest_plugin"


@dataclass(frozen=True)
class EvalRunResult:
    """The scored run of one `eval_cases(...)`: what `eval_run` gives a test."""

    report: RunReport
    """Every case, repeat, turn, tool call and score, as in `tracegrade run --json`."""
    db_path: str
    not_replayable: dict[tuple[str, str], str]
    """(eval set id, case id) of the cases the harness cannot replay, and why."""

    def __repr__(self) -> str:
        return f"<EvalRunResult {self.run_id}: {self.report.verdict}>"

    @property
    def run_id(self) -> str:
        return self.report.run.run_id

    @property
    def passed(self) -> bool:
        return self.report.verdict == "passed"

    @property
    def over_error_budget(self) -> bool:
        """More case repeats crashed than `max_error_rate` allows (`tracegrade run` exits 3)."""
        rate, allowed = self.report.error_rate, self.report.scoring.max_error_rate or 0.0
        return rate is not None and rate > allowed

    def case(self, eval_set_id: str, case_id: str) -> EvalCaseResult | None:
        found = next(
            (c for c in self.report.cases if (c.eval_set_id, c.case_id) == (eval_set_id, case_id)),
            None,
        )
        return EvalCaseResult(found, self) if found else None

    def assert_passed(self) -> None:
        """Fail unless the run passes the gate as `tracegrade run` decides it: every case,
        the run-level budgets (p50/p95) and the error budget."""
        __tracebackhide__ = True
        if not self.passed:
            raise EvalCaseFailed(messages.run_failure(self, with_cases=True))

    def assert_run_budgets(self) -> None:
        """Fail on what no single case decides: the run-level budgets (p50/p95) and the
        error budget (`max_error_rate`). Pair it with per-case tests, which report cases."""
        __tracebackhide__ = True
        if messages.broken_budgets(self):
            raise EvalCaseFailed(messages.run_failure(self, with_cases=False))


@dataclass(frozen=True)
class EvalCaseResult:
    """One eval case of the session's run: what `case_result` gives a test."""

    report: CaseReport
    """The case's repeats, turns, tool calls and scores, as in the JSON report."""
    run: EvalRunResult

    def __repr__(self) -> str:
        # pytest prints a failing test's arguments: one line, not every turn.
        return f"<EvalCaseResult {self.eval_set_id}/{self.case_id}: {self.verdict}>"

    @property
    def eval_set_id(self) -> str:
        return self.report.eval_set_id

    @property
    def case_id(self) -> str:
        return self.report.case_id

    @property
    def verdict(self) -> str:
        """passed, failed, error (every repeat crashed) or not_evaluated."""
        return self.report.verdict

    @property
    def passed(self) -> bool:
        return self.report.verdict == "passed"

    @property
    def flaky(self) -> bool:
        """Passed some of its judged repeats, not all."""
        return self.report.flaky

    def assert_passed(self) -> None:
        """Fail the test unless the case passed its criteria, showing per failing turn the
        expected and actual tool calls and the failing metrics against their thresholds.
        A case whose repeats crashed fails with `ERROR:` when the run is over its error
        budget, as `tracegrade run` would."""
        __tracebackhide__ = True
        crashed = self.report.errored_repeats and self.run.over_error_budget
        if self.verdict == "error" or crashed:
            raise EvalCaseFailed(messages.case_error(self))
        if self.verdict == "not_evaluated":
            raise EvalCaseFailed(messages.case_not_evaluated(self))
        if not self.passed:
            raise EvalCaseFailed(messages.case_failure(self))
