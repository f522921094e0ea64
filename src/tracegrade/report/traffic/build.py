"""`build_traffic_report`: a scored selection of production turns, overall, per agent, per
model and per service (service.name and service.version).

Traffic has no expectations, so this is about budgets and health: turns over a budget,
repeated tool calls, tool errors, cost per turn (with how many turns could be priced),
latency. Aggregation happens in SQL, so a large selection read through a remote endpoint
comes back as a few rows.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tracegrade.report.judges import JudgeUsage, judge_usage
from tracegrade.report.models import RunMetric, ScoringInfo
from tracegrade.report.queries import ReportError, Row, find_scoring, score_rows
from tracegrade.report.summary import run_metrics, scoring_info
from tracegrade.report.values import as_dict, as_float, as_int
from tracegrade.scoring.selected import drop_selected, select_traces
from tracegrade.store.reader import LocalReader, Reader, records

SAMPLING_CAVEAT = (
    "Error rates overstate the true rate if the Collector keeps every error trace "
    "but samples the rest."
)


class TrafficRow(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str = Field(description="the agent or model; 'all' for every scored turn")
    turns: int
    errored_turns: int
    error_rate: float | None
    budgets_breached: dict[str, int] = Field(description="metric: turns over its bound")
    duplicate_call_turns: int = Field(description="turns that repeated a tool call")
    consecutive_repeats: int = Field(description="calls identical to the call before them")
    tool_errors: int
    cost_per_turn_usd: float | None = Field(description="mean over the priced turns")
    priced_turns: int
    latency_p50_ms: float | None = Field(description="over turns that did not error")
    latency_p95_ms: float | None


class TrafficReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    scoring: ScoringInfo
    selection: dict[str, Any] = Field(description="{run_id, since_s, sample, where}")
    verdict: str
    exit_code: int
    overall: TrafficRow
    by_agent: list[TrafficRow] = Field(description="by the turn's root agent")
    by_model: list[TrafficRow] = Field(description="turns that called the model")
    by_service: list[TrafficRow] = Field(
        default_factory=list,
        description="by the turn's resource service.name and service.version ('name version')",
    )
    metrics: list[RunMetric]
    caveat: str
    judges: list[JudgeUsage] = Field(
        default_factory=list, description="each judged metric's judge: answers, calls, cost"
    )


_GROUPED = """
WITH per_turn AS (
    SELECT turn_id,
           list(metric ORDER BY metric) FILTER (status = 'failed') AS breached,
           any_value(score) FILTER (metric = 'cost_usd') AS cost,
           any_value(score) FILTER (metric = 'tool_efficiency') AS efficiency,
           any_value((detail->>'consecutive_repeats')::INTEGER)
               FILTER (metric = 'tool_efficiency') AS consecutive
    FROM ({scores}) scored
    GROUP BY turn_id
),
facts AS (
    -- The service is the root span's resource: service.name and service.version.
    SELECT p.*, t.root_agent, t.models, t.latency_ms, t.is_error, t.tool_errors,
           coalesce(r.service_name, '(unknown)')
               || coalesce(' ' || (r.resource->>'$."service.version"'), '') AS service
    FROM per_turn p JOIN {turns} t USING (turn_id)
    LEFT JOIN spans r ON r.trace_id = t.trace_id AND r.span_id = t.root_span_id
),
grouped AS (
    SELECT 'all' AS dimension, 'all' AS name, * FROM facts
    UNION ALL
    SELECT 'agent', coalesce(root_agent, '(unknown)'), * FROM facts
    UNION ALL
    SELECT 'service', service, * FROM facts
    UNION ALL
    SELECT 'model', model, * EXCLUDE (model) FROM (
        SELECT unnest(CASE WHEN len(models) = 0 THEN ['(none)'] ELSE models END) AS model, *
        FROM facts
    )
)
"""

_ROWS = (
    _GROUPED
    + """
SELECT dimension, name, count(*) AS turns, count(*) FILTER (is_error) AS errored,
       quantile_cont(latency_ms, 0.5) FILTER (NOT is_error) AS p50,
       quantile_cont(latency_ms, 0.95) FILTER (NOT is_error) AS p95,
       coalesce(sum(tool_errors), 0) AS tool_errors,
       count(*) FILTER (efficiency < 1) AS duplicate_turns,
       coalesce(sum(consecutive), 0) AS consecutive,
       avg(cost) AS cost_per_turn, count(cost) AS priced
FROM grouped
GROUP BY dimension, name
ORDER BY dimension, name
"""
)

_BREACHES = (
    _GROUPED
    + """
SELECT dimension, name, metric, count(*) AS turns
FROM grouped, unnest(breached) AS b(metric)
GROUP BY ALL
ORDER BY ALL
"""
)


def traffic_scoring_exists(reader: Reader, scoring_id: str) -> bool:
    """Whether `scoring_id` is a stored scoring of traffic (no eval run)."""
    found = records(
        reader, "SELECT 1 FROM scorings WHERE scoring_id = ? AND run_id IS NULL", [scoring_id]
    )
    return bool(found)


def build_traffic_report(reader: Reader, scoring_id: str) -> TrafficReport:
    scoring = find_scoring(reader, scoring_id, None)
    if scoring["run_id"] is not None:
        raise ReportError(
            f"scoring '{scoring_id}' scored eval run '{scoring['run_id']}': use the run report"
        )
    info = scoring_info(scoring)
    overall, by_agent, by_model, by_service = traffic_rows(reader, _SCORING_TURNS, [scoring_id])
    return TrafficReport(
        scoring=info,
        selection=as_dict(scoring["selection"]),
        verdict=str(scoring["verdict"]),
        exit_code=int(scoring["exit_code"]),
        overall=overall,
        by_agent=by_agent,
        by_model=by_model,
        by_service=by_service,
        metrics=run_metrics(score_rows(reader, scoring_id, "run"), info.criteria),
        caveat=SAMPLING_CAVEAT,
        judges=judge_usage(reader, scoring_id),
    )


_SCORING_TURNS = "SELECT * FROM scores WHERE scoring_id = ? AND level = 'turn'"


def traffic_rows(
    reader: Reader, scores: str, params: list[Any]
) -> tuple[TrafficRow, list[TrafficRow], list[TrafficRow], list[TrafficRow]]:
    """Overall, per agent, per model and per service: the turns whose turn-level score rows
    `scores` (a SELECT over `scores`, with `params`) holds, one row per turn and metric."""
    turns = _scored_turns(reader, scores, params)
    breaches: dict[tuple[str, str], dict[str, int]] = {}
    grouped = _BREACHES.format(scores=scores, turns=turns)
    for row in records(reader, grouped, params):
        breaches.setdefault((row["dimension"], row["name"]), {})[row["metric"]] = int(row["turns"])
    rows = {
        (row["dimension"], row["name"]): _row(row, breaches.get((row["dimension"], row["name"])))
        for row in records(reader, _ROWS.format(scores=scores, turns=turns), params)
    }
    empty = TrafficRow.model_validate(_EMPTY)
    return (
        rows.get(("all", "all"), empty),
        [r for (dimension, _), r in rows.items() if dimension == "agent"],
        [r for (dimension, _), r in rows.items() if dimension == "model"],
        [r for (dimension, _), r in rows.items() if dimension == "service"],
    )


_EMPTY: dict[str, Any] = {
    "name": "all",
    "turns": 0,
    "errored_turns": 0,
    "error_rate": None,
    "budgets_breached": {},
    "duplicate_call_turns": 0,
    "consecutive_repeats": 0,
    "tool_errors": 0,
    "cost_per_turn_usd": None,
    "priced_turns": 0,
    "latency_p50_ms": None,
    "latency_p95_ms": None,
}


def _scored_turns(reader: Reader, scores: str, params: list[Any]) -> str:
    """The relation the scored turns' facts are read from: the `turns` view, or, on this
    process's own connection, a table of the scored traces' turns alone. The view normalises
    every stored span (after `score --sample 0.05` over 1.04M spans scored in 16.7 s, one of
    the two report queries took 64.5 s through the view)."""
    if not isinstance(reader, LocalReader):
        return "turns"
    scored = f"trace_id IN (SELECT split_part(turn_id, '-', 1) FROM ({scores}) scored)"  # noqa: S608 — `scores` is this package's SQL; values are parameters
    connection = reader.checked_connection()  # the scoring SQL calls tg_canonical_json
    select_traces(connection, (scored, params))
    try:
        connection.execute(
            "CREATE OR REPLACE TEMP TABLE report_turns AS "
            "SELECT turn_id, trace_id, root_span_id, root_agent, models, latency_ms, is_error, "
            "tool_errors "
            "FROM scoring_turns"
        )
    finally:
        drop_selected(connection)
    return "report_turns"


def _row(row: Row, breached: dict[str, int] | None) -> TrafficRow:
    turns, errored = int(row["turns"]), int(row["errored"])
    cost = as_float(row["cost_per_turn"])
    return TrafficRow(
        name=str(row["name"]),
        turns=turns,
        errored_turns=errored,
        error_rate=errored / turns if turns else None,
        budgets_breached=breached or {},
        duplicate_call_turns=int(row["duplicate_turns"]),
        consecutive_repeats=as_int(row["consecutive"]) or 0,
        tool_errors=as_int(row["tool_errors"]) or 0,
        cost_per_turn_usd=None if cost is None else round(cost, 10),
        priced_turns=int(row["priced"]),
        latency_p50_ms=as_float(row["p50"]),
        latency_p95_ms=as_float(row["p95"]),
    )


def traffic_to_json(report: TrafficReport) -> str:
    """A traffic scoring as JSON, to keep or compare over time: the selection, the verdict,
    the rows overall, per agent and per model, and every metric against its budgets; keys in
    the models' field order."""
    return report.model_dump_json(indent=2) + "\n"
