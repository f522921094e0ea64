"""`list_runs`: stored eval runs and how each last scored (`tracegrade runs`).

Newest first means received last by this database (`store.run_identity`): a run span's
own times are the sender's to choose.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from tracegrade.report.queries import iso_utc
from tracegrade.report.values import as_dict, as_int, as_list, as_str
from tracegrade.store.reader import Reader, records
from tracegrade.store.run_identity import RunReceipt, run_receipts, run_token


class RunSummary(BaseModel):
    model_config = ConfigDict(frozen=True)

    run_id: str
    started_at: str | None
    """When it started, as its span says (the sender's clock)."""
    received_at: str | None
    """When this database first stored the run's span: what orders the list."""
    signed: bool | None
    """Signed under the reader's token (or written in process); None when no token is set.
    An unsigned run is never taken as the latest."""
    agent: str | None
    eval_sets: list[str]
    tags: list[str]
    """Names given with `tracegrade run --tag`, for `--baseline TAG`."""
    cases: int
    repeats: int | None
    scoring_id: str | None
    """The latest scoring; None when the run was never scored."""
    verdict: str | None
    passed_cases: int | None
    failed_cases: int | None
    errored_cases: int | None


_RUNS = """
WITH runs AS (
    -- A run id sent twice is one run, as it was first received.
    SELECT * FROM eval_runs
    QUALIFY row_number() OVER (PARTITION BY run_id ORDER BY received_at, started_at) = 1
),
latest AS (
    SELECT run_id, scoring_id, verdict
    FROM scorings
    WHERE run_id IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY run_id ORDER BY scored_at DESC, scoring_id DESC) = 1
),
outcomes AS (
    SELECT scoring_id,
           count(*) FILTER (verdict = 'passed') AS passed,
           count(*) FILTER (verdict = 'failed') AS failed,
           count(*) FILTER (verdict = 'error') AS errored
    FROM case_results
    GROUP BY scoring_id
)
SELECT r.run_id, epoch_us(r.started_at) AS started_us, r.agent, r.eval_sets, r.tags, r.cases,
       r.repeats, l.scoring_id, l.verdict, o.passed, o.failed, o.errored
FROM runs r
LEFT JOIN latest l USING (run_id)
LEFT JOIN outcomes o USING (scoring_id)
WHERE list_contains(?, r.run_id)
"""


def list_runs(
    reader: Reader, limit: int | None = None, token: str | None = None
) -> list[RunSummary]:
    """Newest received first; the `limit` newest when given. Signed or not is told under
    `token`, else $TRACEGRADE_TOKEN."""
    receipts = run_receipts(reader, run_token(token))[:limit]
    found = {row["run_id"]: row for row in records(reader, _RUNS, [[r.run_id for r in receipts]])}
    return [_summary(found[r.run_id], r) for r in receipts if r.run_id in found]


def _summary(row: dict[str, object], receipt: RunReceipt) -> RunSummary:
    return RunSummary(
        run_id=str(row["run_id"]),
        started_at=iso_utc(row["started_us"]),
        received_at=iso_utc(receipt.received_us),
        signed=receipt.attested,
        agent=as_str(row["agent"]),
        eval_sets=[str(as_dict(s).get("eval_set_id")) for s in as_list(row["eval_sets"])],
        tags=[str(tag) for tag in as_list(row["tags"]) if tag is not None],
        cases=as_int(row["cases"]) or 0,
        repeats=as_int(row["repeats"]),
        scoring_id=as_str(row["scoring_id"]),
        verdict=as_str(row["verdict"]),
        passed_cases=as_int(row["passed"]),
        failed_cases=as_int(row["failed"]),
        errored_cases=as_int(row["errored"]),
    )


class TrafficScoringSummary(BaseModel):
    """One scoring of production traffic (`tracegrade runs --traffic`)."""

    model_config = ConfigDict(frozen=True)

    scoring_id: str
    scored_at: str | None
    rule: str | None
    """The online rule that made it (`selection.rule`); None for `score --since/--sample`."""
    selection: str
    """What was scored, in words: `traffic of the last 24h sampled at 5% of trace ids`."""
    turns: int
    verdict: str


TRAFFIC_LIMIT = 100
"""Traffic scorings listed unless asked for more: online rules make one per batch of turns."""


def list_traffic_scorings(reader: Reader, limit: int | None = None) -> list[TrafficScoringSummary]:
    """The `limit` newest (default `TRAFFIC_LIMIT`), newest first."""
    from tracegrade.report.pages.sql import rows
    from tracegrade.report.traffic.text import describe

    found = rows(reader, "traffic_scorings", limit if limit is not None else TRAFFIC_LIMIT)
    summaries = []
    for row in found:
        selection = as_dict(row["selection"])
        summaries.append(
            TrafficScoringSummary(
                scoring_id=str(row["scoring_id"]),
                scored_at=iso_utc(row["scored_us"]),
                rule=as_str(selection.get("rule")),
                selection=describe({**selection, "rule": None}),
                turns=int(row["turns"]),
                verdict=str(row["verdict"]),
            )
        )
    return summaries
