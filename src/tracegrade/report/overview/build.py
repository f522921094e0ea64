"""`build_overview`: what the terminal shows for a large run, read with a few aggregate
queries instead of the whole report.

A run of thousands of cases would print a table row per case and an explanation per
failure (a 100k-turn run: ~880k lines, 20 minutes, 5.5 GB). Its overview is what a person
reads first: how many cases passed, failed and errored, each gating metric over the cases,
the run's budgets and totals, and the worst failures and errors, each on a line or two with
a count of the rest; every case, repeat and turn stays in the JSON and JUnit reports.

It reads only the `scores`, `case_results` and `scorings` tables and the run's spans by
their typed columns, never the views that rebuild turns from spans, so its cost is linear
in the scores and does not depend on how many spans the run made.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from tracegrade.report import queries
from tracegrade.report.explain import trajectory_reason
from tracegrade.report.models import RunInfo, RunMetric, ScoringInfo, Totals
from tracegrade.report.queries import Row
from tracegrade.report.summary import percentile, run_info, run_metrics, scoring_info, usd_sum
from tracegrade.report.values import as_dict, as_float, as_int, as_list, as_str, num
from tracegrade.store.reader import Reader, records

LARGE_RUN_CASES = 50
"""Runs with more cases than this get the overview in the terminal instead of the full table."""
WORST = 10
"""Failing (and errored) cases shown, worst first."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CaseCounts(_Model):
    cases: int
    passed: int
    failed: int
    errored: int
    not_evaluated: int
    flaky: int
    with_errors: int
    """Cases with at least one errored repeat (errors are not failures)."""


class CaseMetric(_Model):
    """One gating metric over every case repeat of the run."""

    metric: str
    mean: float | None
    failed_repeats: int
    judged_repeats: int


class WorstCase(_Model):
    eval_set_id: str
    case_id: str
    passed_repeats: int
    repeats: int
    errored_repeats: int
    failed_metrics: list[str]
    finding: str | None
    """The first failing (or erroring) turn's reason, in words."""


class RunOverview(_Model):
    run: RunInfo
    scoring: ScoringInfo
    verdict: str
    exit_code: int
    error_rate: float | None
    errored_repeats: int
    total_repeats: int
    counts: CaseCounts
    case_metrics: list[CaseMetric]
    metrics: list[RunMetric]
    totals: Totals
    worst_failed: list[WorstCase]
    worst_errored: list[WorstCase]


def build_overview(
    reader: Reader, scoring_id: str | None = None, run_id: str | None = None, worst: int = WORST
) -> RunOverview:
    """The overview of a scoring, chosen as `build_report` chooses it."""
    scoring = queries.find_run_scoring(reader, scoring_id, run_id, "the traffic report")
    info = scoring_info(scoring)
    sid, run = info.scoring_id, str(scoring["run_id"])
    counts = _counts(reader, sid)
    gating = [c.metric for c in info.criteria if c.threshold is not None or c.max is not None]
    return RunOverview(
        run=run_info(queries.run_row(reader, run)),
        scoring=info,
        verdict=str(scoring["verdict"]),
        exit_code=int(scoring["exit_code"]),
        error_rate=as_float(scoring["error_rate"]),
        errored_repeats=counts.pop("errored_repeats"),
        total_repeats=counts.pop("total_repeats"),
        counts=CaseCounts(**counts),
        case_metrics=[m for m in _case_metrics(reader, sid) if m.metric in gating],
        metrics=run_metrics(queries.score_rows(reader, sid, "run"), info.criteria),
        totals=_totals(reader, sid),
        worst_failed=_worst_failed(reader, sid, worst),
        worst_errored=_worst_errored(reader, sid, run, worst),
    )


def is_large(reader: Reader, scoring_id: str | None = None, run_id: str | None = None) -> bool:
    """Whether the scoring's run has more cases than the terminal shows one by one."""
    scoring = queries.find_scoring(reader, scoring_id, run_id)
    rows = records(
        reader,
        "SELECT count(*) AS cases FROM case_results WHERE scoring_id = ?",
        [scoring["scoring_id"]],
    )
    return int(rows[0]["cases"]) > LARGE_RUN_CASES


def _counts(reader: Reader, scoring_id: str) -> dict[str, int]:
    (row,) = records(
        reader,
        """
        SELECT count(*) AS cases,
               count(*) FILTER (verdict = 'passed') AS passed,
               count(*) FILTER (verdict = 'failed') AS failed,
               count(*) FILTER (verdict = 'error') AS errored,
               count(*) FILTER (verdict = 'not_evaluated') AS not_evaluated,
               count(*) FILTER (flaky) AS flaky,
               count(*) FILTER (errored_repeats > 0) AS with_errors,
               coalesce(sum(errored_repeats), 0)::BIGINT AS errored_repeats,
               coalesce(sum(repeats), 0)::BIGINT AS total_repeats
        FROM case_results WHERE scoring_id = ?
        """,
        [scoring_id],
    )
    return {key: int(value) for key, value in row.items()}


def _case_metrics(reader: Reader, scoring_id: str) -> list[CaseMetric]:
    rows = records(
        reader,
        """
        SELECT metric, avg(score) AS mean,
               count(*) FILTER (status = 'failed') AS failed_repeats,
               count(*) FILTER (status IN ('passed', 'failed')) AS judged_repeats
        FROM scores WHERE scoring_id = ? AND level = 'case'
        GROUP BY metric ORDER BY metric
        """,
        [scoring_id],
    )
    return [
        CaseMetric(
            metric=str(r["metric"]),
            mean=as_float(r["mean"]),
            failed_repeats=int(r["failed_repeats"]),
            judged_repeats=int(r["judged_repeats"]),
        )
        for r in rows
    ]


# The turns' latency, tokens and cost as the scoring stored them (the latency, token_usage
# and cost_usd metrics, which every scoring runs): the same numbers `summary.totals` takes
# from the turns, without rebuilding the turns from their spans.
_TOTALS = """
SELECT turn_id,
       bool_or(status = 'error') AS errored,
       any_value(score) FILTER (metric = 'latency') AS latency_ms,
       any_value(coalesce(score, CASE WHEN (detail->>'input') IS NOT NULL
                                        OR (detail->>'output') IS NOT NULL
                 THEN coalesce((detail->>'input')::BIGINT, 0)
                    + coalesce((detail->>'output')::BIGINT, 0) END))
           FILTER (metric = 'token_usage') AS total_tokens,
       any_value(score) FILTER (metric = 'cost_usd') AS cost_usd
FROM scores WHERE scoring_id = ? AND level = 'turn'
GROUP BY turn_id
"""


def _totals(reader: Reader, scoring_id: str) -> Totals:
    _, rows = reader.query(
        f"SELECT list(latency_ms ORDER BY latency_ms) FILTER (NOT errored), count(*), "  # noqa: S608 — _TOTALS is a constant
        f"count(*) FILTER (errored), sum(total_tokens)::BIGINT, "
        f"list(cost_usd ORDER BY turn_id) FILTER (cost_usd IS NOT NULL) FROM ({_TOTALS})",
        [scoring_id],
    )
    latencies, turns, errored, tokens, costs = rows[0]
    known = [float(v) for v in as_list(latencies) if v is not None]
    priced = [float(c) for c in as_list(costs)]
    return Totals(
        turns=int(turns),
        errored_turns=int(errored or 0),
        latency_p50_ms=percentile(known, 0.5),
        latency_p95_ms=percentile(known, 0.95),
        input_tokens=None,
        output_tokens=None,
        total_tokens=as_int(tokens),
        cost_usd=usd_sum(priced),
        priced_turns=len(priced),
    )


def _worst_failed(reader: Reader, scoring_id: str, limit: int) -> list[WorstCase]:
    """Failing cases with the fewest repeats passed, the most failed, then the lowest mean
    score of their failed metrics; each with its first failing turn's reason."""
    rows = records(
        reader,
        """
        WITH failing AS (
            SELECT c.*, (
                SELECT avg(s.score) FROM scores s
                WHERE s.scoring_id = c.scoring_id AND s.level = 'case'
                  AND s.eval_set_id = c.eval_set_id AND s.case_id = c.case_id
                  AND list_contains(c.failed_metrics, s.metric)
            ) AS failed_mean
            FROM case_results c WHERE c.scoring_id = ? AND c.verdict = 'failed'
            ORDER BY c.passed_repeats, c.failed_repeats DESC, failed_mean NULLS LAST,
                     c.eval_set_id, c.case_id
            LIMIT ?
        )
        SELECT f.eval_set_id, f.case_id, f.repeats, f.passed_repeats, f.errored_repeats,
               f.failed_metrics,
               (SELECT s.metric || ' ' || coalesce(s.score::VARCHAR, '') || chr(31)
                       || coalesce(s.detail::VARCHAR, '{}')
                FROM scores s
                WHERE s.scoring_id = ? AND s.level = 'turn' AND s.status = 'failed'
                  AND s.eval_set_id = f.eval_set_id AND s.case_id = f.case_id
                ORDER BY s.repeat, s.turn_index, (s.detail->'expected') IS NULL, s.metric
                LIMIT 1) AS finding
        FROM failing f
        ORDER BY f.passed_repeats, f.failed_repeats DESC, f.failed_mean NULLS LAST,
                 f.eval_set_id, f.case_id
        """,
        [scoring_id, limit, scoring_id],
    )
    return [_worst(r, _finding(as_str(r["finding"]))) for r in rows]


def _worst_errored(reader: Reader, scoring_id: str, run_id: str, limit: int) -> list[WorstCase]:
    rows = records(
        reader,
        """
        SELECT c.eval_set_id, c.case_id, c.repeats, c.passed_repeats, c.errored_repeats,
               c.failed_metrics,
               (SELECT coalesce(s.status_message, 'error') FROM spans s
                WHERE s.scope_name = 'tracegrade' AND s.name = 'tracegrade.eval_turn'
                  AND s.status_code = 'ERROR' AND s.attrs."tracegrade.run_id" = ?
                  AND s.attrs."tracegrade.eval_set_id" = c.eval_set_id
                  AND s.attrs."tracegrade.case_id" = c.case_id
                ORDER BY s.start_ns LIMIT 1) AS finding
        FROM case_results c WHERE c.scoring_id = ? AND c.errored_repeats > 0
        ORDER BY c.errored_repeats DESC, c.eval_set_id, c.case_id
        LIMIT ?
        """,
        [run_id, scoring_id, limit],
    )
    return [_worst(r, as_str(r["finding"])) for r in rows]


def _worst(row: Row, finding: str | None) -> WorstCase:
    return WorstCase(
        eval_set_id=str(row["eval_set_id"]),
        case_id=str(row["case_id"]),
        passed_repeats=int(row["passed_repeats"]),
        repeats=int(row["repeats"]),
        errored_repeats=int(row["errored_repeats"]),
        failed_metrics=[str(m) for m in as_list(row["failed_metrics"])],
        finding=finding,
    )


def _finding(packed: str | None) -> str | None:
    """`metric score` and the detail of a failed turn score, as one line."""
    if packed is None:
        return None
    head, _, raw = packed.partition(chr(31))
    metric, _, score = head.partition(" ")
    detail = as_dict(raw)
    line = f"{metric} {num(as_float(score))}"
    if "expected" in detail and "actual" in detail:
        expected, actual = as_list(detail["expected"]), as_list(detail["actual"])
        match_type = str(detail.get("match_type") or "EXACT")
        return f"{line}: {detail.get('reason') or trajectory_reason(expected, actual, match_type)}"
    if "reference_missing" in detail:
        return f"{line}: response differs from the reference"
    return line
