"""Scoring what is already stored, asked for as one typed `ScoreRequest`.

The same request scores a file this process opened, or is sent to the `tracegrade serve`
that holds the file (POST /v1/score, `ScoreRequest.to_wire`), which reads it back and
calls `score_stored` itself (`answer_wire`); serve's online scoring calls it too.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import duckdb

from tracegrade.scoring.criteria import parse_config
from tracegrade.scoring.engine import score, score_matched
from tracegrade.scoring.judging import check_judges
from tracegrade.scoring.judging.settings import Stop
from tracegrade.scoring.matching import Matching, matched_run_id
from tracegrade.scoring.metrics import available_metrics
from tracegrade.scoring.selection import Selection
from tracegrade.scoring.stored import latest_run_id, run_criteria
from tracegrade.store.connection import transaction
from tracegrade.workspace.requests import Criteria, EvalSetCases, ScoreRequest, criteria_of
from tracegrade.workspace.results import (
    JudgesResolved,
    MatchReport,
    ScoreResult,
    UnmatchedCase,
    UnmatchedSession,
)


def score_stored(
    connection: duckdb.DuckDBPyConnection,
    request: ScoreRequest,
    *,
    stop: Stop | None = None,
    token: str | None = None,
) -> ScoreResult:
    """Score what `request` selects; the scoring id and the gate's verdict.

    A `where` runs first, alone, through the read-only guard; the scoring's writes then
    happen in one transaction, so a scoring stopped half-way (an error, a time limit,
    `stop` giving a reason while judges are asked) leaves nothing behind but the judges'
    answers it paid for, which the next scoring reuses. Without a `run_id` the latest run
    is scored: the one received last, of those attested under `token` when it is given."""
    if request.evalset is not None:
        return _score_evalset(connection, request, request.evalset, stop)
    run_id = None if request.traffic else (request.run_id or latest_run_id(connection, token))
    criteria = _criteria(connection, request, run_id)
    selection = _selection(request, run_id).resolved(connection)
    with transaction(connection):
        result = score(
            connection, selection, criteria.config, criteria.specs, request.judge, stop=stop
        )
    return ScoreResult(
        scoring_id=result.scoring_id,
        run_id=result.run_id,
        turns=result.turns,
        verdict=result.verdict,
        exit_code=result.exit_code,
    )


def _score_evalset(
    connection: duckdb.DuckDBPyConnection,
    request: ScoreRequest,
    evalset: EvalSetCases,
    stop: Stop | None,
) -> ScoreResult:
    """The stored sessions of no eval run that match the eval set's cases, scored as an
    eval run's case repeats (scoring/matching.py), with the request's criteria (a file's
    request took those beside it, test_config.json, when it was made), else ADK's
    defaults: the wire sends no criteria for them."""
    criteria = request.criteria or criteria_of(None, request.specs(), "the eval set's criteria")
    selection = Selection(run_id=matched_run_id(), evalset=evalset.source)
    with transaction(connection):
        result, matching = score_matched(
            connection,
            selection,
            evalset.cases,
            criteria.config,
            criteria.specs,
            request.judge,
            stop=stop,
        )
    return ScoreResult(
        scoring_id=result.scoring_id,
        run_id=result.run_id,
        turns=result.turns,
        verdict=result.verdict,
        exit_code=result.exit_code,
        matching=_report(evalset.source, matching),
    )


def _report(path: str, matching: Matching) -> MatchReport:
    return MatchReport(
        evalset=path,
        matched_sessions=matching.matched_sessions,
        matched_cases=matching.matched_cases,
        unmatched_cases=tuple(
            UnmatchedCase(eval_set_id=c.eval_set_id, case_id=c.case_id, reason=c.reason)
            for c in matching.unmatched_cases
        ),
        unmatched_sessions=tuple(
            UnmatchedSession(
                session_id=s.session_id, turns=s.turns, user_texts=s.user_texts, matches=s.matches
            )
            for s in matching.unmatched_sessions
        ),
    )


def resolve_judges(request: ScoreRequest) -> JudgesResolved:
    """Resolve the judges the request's criteria name (none given: ADK's default criteria,
    as a run made without a criteria file has), scoring nothing: can this process judge a
    run made with them? No run need be stored yet."""
    specs = request.specs()
    config = request.criteria.config if request.criteria else parse_config(None, specs)
    check_judges(config, specs)
    return JudgesResolved()


def answer_wire(
    connection: duckdb.DuckDBPyConnection,
    body: dict[str, Any],
    *,
    stop: Stop | None = None,
    token: str | None = None,
) -> dict[str, Any]:
    """A JSON request body (POST /v1/score) read into a `ScoreRequest` and answered."""
    request = ScoreRequest.from_wire(body, available_metrics())
    if request.check_judges:
        return resolve_judges(request).model_dump(mode="json")
    return score_stored(connection, request, stop=stop, token=token).model_dump(mode="json")


def _criteria(
    connection: duckdb.DuckDBPyConnection, request: ScoreRequest, run_id: str | None
) -> Criteria:
    """The criteria given, else those the run was made with, else (traffic) none: traffic
    has no expected answers, so ADK's defaults cannot apply."""
    if request.criteria is not None:
        return request.criteria
    specs = request.specs()
    if run_id is None:
        return criteria_of({"criteria": {}}, specs, "the criteria given")
    return criteria_of(run_criteria(connection, run_id), specs, "the run's criteria")


def _selection(request: ScoreRequest, run_id: str | None) -> Selection:
    since = request.since_s
    return Selection(
        run_id=run_id,
        since=dt.timedelta(seconds=since) if since is not None else None,
        sample=request.sample,
        where=request.where,
    )
