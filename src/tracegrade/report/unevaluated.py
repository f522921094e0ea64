"""What was not evaluated, and why, in words: the lines behind exit code 4.

Three sources, in this order: criteria the scoring left out (a metric tracegrade does not
run, one not applicable to traffic), gating metrics that gave turns no score (the scorer's
`reason`: arguments not captured, no expectation, a judge that failed), and a run with no
criterion at all.
"""

from __future__ import annotations

from tracegrade.report.models import CaseReport, RunReport, ScoringInfo
from tracegrade.report.values import plural

NO_CRITERION = "no criterion gates the run"
NO_VALUE = "the metric had no value for it"


def run_reasons(report: RunReport) -> list[str]:
    """One line a metric: `metric: reason; reason` (with how many turns, where counted)."""
    lines = _left_out(report.scoring)
    for metric in report.metrics:
        if metric.gating and metric.not_evaluated:
            reasons = "; ".join(metric.not_evaluated_reasons) or NO_VALUE
            lines.append(f"{metric.metric} ({plural(metric.not_evaluated, 'turn')}): {reasons}")
    return lines


def case_reasons(case: CaseReport, scoring: ScoringInfo) -> list[str]:
    """The same for one case: what its gating metrics could not score in it."""
    found: dict[str, set[str]] = {}
    for repeat in case.repeat_results:
        for turn in repeat.turns:
            for score in turn.scores:
                if score.gating and score.status == "not_evaluated":
                    detail = score.detail if isinstance(score.detail, dict) else {}
                    found.setdefault(score.metric, set()).add(str(detail.get("reason") or NO_VALUE))
    lines = _left_out(scoring)
    lines += [f"{metric}: {'; '.join(sorted(why))}" for metric, why in sorted(found.items())]
    return lines


def _left_out(scoring: ScoringInfo) -> list[str]:
    lines = [f"{metric}: {reason}" for metric, reason in sorted(scoring.not_evaluated.items())]
    if not scoring.criteria and not lines:
        lines.append(NO_CRITERION)
    return lines
