"""Scoring what is already stored, asked for as one JSON-ready request.

The same request scores a file this process opened, or is sent to a `tracegrade serve`
that holds the file (POST /v1/score), which runs `score_request` itself:

    {"run_id": "...", "config": {...}}                 an eval run (default: the latest),
                                                        with the criteria it was made with
                                                        unless `config` is given
    {"since_s": 86400, "sample": 0.05, "where": "..."}  traffic: turns of no eval run
    {..., "judge": {"concurrency": 64, "budget_usd": 2}} how judged metrics call their
                                                        judges (judging/settings.py)
    {"config": {...}, "check_judges": true}             only resolve the judges `config`
                                                        (default: ADK's) names, scoring
                                                        nothing: can this process judge a
                                                        run made with it?
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import duckdb

from tracegrade.errors import ConfigError
from tracegrade.scoring.criteria import ScoringConfig, parse_config
from tracegrade.scoring.engine import NothingToScore, score
from tracegrade.scoring.judging import check_judges
from tracegrade.scoring.judging.settings import Stop, judge_settings
from tracegrade.scoring.metrics import MetricSpec, available_metrics
from tracegrade.scoring.selection import Selection
from tracegrade.store.reader import LocalReader
from tracegrade.store.run_identity import latest_run

TRAFFIC_KEYS = ("since_s", "sample", "where")


def score_request(
    connection: duckdb.DuckDBPyConnection,
    request: dict[str, Any],
    metric_dirs: Iterable[Path] = (),
    *,
    stop: Stop | None = None,
    token: str | None = None,
) -> dict[str, Any]:
    """Score what `request` selects; a summary with the scoring id and the gate's verdict.

    A `where` runs first, alone, through the read-only guard; the scoring's writes then
    happen in one transaction, so a scoring stopped half-way (an error, a time limit,
    `stop` giving a reason while judges are asked) leaves nothing behind but the judges'
    answers it paid for, which the next scoring reuses. Without a `run_id` the latest run
    is scored: the one received last, of those attested under `token` when it is given."""
    _check_fields(request)
    traffic = any(request.get(key) is not None for key in TRAFFIC_KEYS)
    if traffic and request.get("run_id"):
        raise ConfigError("give a run_id or traffic options (since, sample, where), not both")
    specs = available_metrics(list(metric_dirs))
    if request.get("check_judges"):  # before any run is looked for: none may be stored yet
        # No config: ADK's default criteria, as a run made without a criteria file has.
        check_judges(_parsed(request.get("config"), specs, "the criteria given"), specs)
        return {"judges_resolved": True}
    run_id = None if traffic else (request.get("run_id") or latest_run_id(connection, token))
    raw = request.get("config")
    if raw is None and run_id is not None:
        raw = run_criteria(connection, run_id)
    elif raw is None:
        raw = {"criteria": {}}  # traffic has no expected answers: ADK's defaults cannot apply
    where = "the criteria given" if request.get("config") is not None else "the run's criteria"
    config = _parsed(raw, specs, where)
    judging = judge_settings(request.get("judge"))
    selection = _selection(request, run_id).resolved(connection)
    connection.execute("BEGIN TRANSACTION")
    try:
        result = score(connection, selection, config, specs, judging, stop=stop)
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")
    return {
        "scoring_id": result.scoring_id,
        "run_id": result.run_id,
        "turns": result.turns,
        "verdict": result.verdict,
        "exit_code": int(result.exit_code),
    }


def _parsed(raw: dict[str, Any] | None, specs: dict[str, MetricSpec], where: str) -> ScoringConfig:
    try:
        return parse_config(raw, specs)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def _check_fields(request: dict[str, Any]) -> None:
    """Each field of the request has the type it needs, or a `ConfigError` names it."""
    unknown = sorted(set(request) - {"run_id", "config", "judge", "check_judges", *TRAFFIC_KEYS})
    if unknown:
        known = "run_id, config, judge, check_judges, since_s, sample, where"
        raise ConfigError(f"unknown field {unknown[0]!r}: the fields are {known}")
    if request.get("check_judges") not in (None, True, False):
        raise ConfigError(f"check_judges {request['check_judges']!r}: must be true or false")
    for key, kind in _FIELD_TYPES.items():
        value = request.get(key)
        if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
            raise ConfigError(f"{key} {value!r}: must be {_FIELD_NAMES[key]}")
    since, sample = request.get("since_s"), request.get("sample")
    if since is not None and not 0 <= since < _MAX_SINCE_S:
        raise ConfigError(f"since_s {since!r}: must be 0 or more seconds, under 100 years")
    if sample is not None and not 0 <= sample <= 1:
        raise ConfigError(f"sample {sample!r}: must be a share between 0 and 1")


_FIELD_TYPES: dict[str, type | tuple[type, ...]] = {
    "run_id": str,
    "config": dict,
    "judge": dict,
    "since_s": (int, float),
    "sample": (int, float),
    "where": str,
}
_FIELD_NAMES = {
    "run_id": "a string",
    "config": "a criteria object",
    "judge": "an object of judge settings",
    "since_s": "a number of seconds",
    "sample": "a number between 0 and 1",
    "where": "a SQL condition (a string)",
}
_MAX_SINCE_S = 100 * 365 * 86400  # past this, a timedelta overflows; nothing is that old


def _selection(request: dict[str, Any], run_id: str | None) -> Selection:
    since = request.get("since_s")
    return Selection(
        run_id=run_id,
        since=dt.timedelta(seconds=since) if since is not None else None,
        sample=request.get("sample"),
        where=request.get("where"),
    )


def latest_run_id(connection: duckdb.DuckDBPyConnection, token: str | None = None) -> str:
    """The run this database received last (with `token`: of the runs it attests)."""
    found = latest_run(LocalReader(connection), token)
    if found is not None:
        return found
    if token is not None and latest_run(LocalReader(connection), None) is not None:
        raise NothingToScore(
            "no stored eval run is signed under this token (a run recorded without it, or a "
            "forged one): name the run to score (run_id, --run); `tracegrade runs` marks them"
        )
    raise NothingToScore("no eval run is stored: record one with `tracegrade run`")


def run_criteria(connection: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, Any] | None:
    """The criteria document a run was made with, or None when it had none."""
    rows = connection.execute(
        # A run id sent twice is the run as first received (store.run_identity).
        "SELECT criteria FROM eval_runs WHERE run_id = ? ORDER BY received_at LIMIT 1",
        [run_id],
    ).fetchall()
    if not rows:
        raise NothingToScore(
            f"no eval run '{run_id}' is stored (see `tracegrade runs`); where spans are "
            "routed to several shards, its own trace may be on another: give each shard's "
            "--db to score them together"
        )
    document = json.loads(rows[0][0]) if rows[0][0] else None
    return document or None
