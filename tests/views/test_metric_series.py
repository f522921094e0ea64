"""metric_series: each traffic metric per hour and per day by rule, agent, model and service,
checked against the same sums made in Python from `scores` and `turns` of the committed
ADK traces, scored as `tracegrade score` does (rule NULL) and as a serve rule tags them."""

from __future__ import annotations

import statistics
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from tests.report.helpers import score_with
from tests.support.paths import DATA
from tests.support.span_factory import adk_like_spans
from tests.support.tiers import costly
from tests.support.views import dict_rows
from tracegrade.capture import DuckDBSpanExporter
from tracegrade.ingest import ingest_file
from tracegrade.scoring import Selection
from tracegrade.store import SpanWriter, connect

TRACES = sorted((DATA / "traces").glob("adk_v2_*.otlp.jsonl"))
CRITERIA = {"criteria": {"token_usage": {"max": 500}}, "tracegrade": {"max_error_rate": 1.0}}
COLUMNS = "rule, metric, grain, bucket, agent, model, service_name, service_version"
HOURLY = (
    f"SELECT {COLUMNS}, turns_scored, evaluated, mean, p50, breaches, errors, tokens "  # noqa: S608 — constants
    "FROM metric_series WHERE grain = 'hour'"
)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("series") / "series.duckdb"
    writer = SpanWriter.open(path)
    try:
        for trace_file in TRACES:
            assert ingest_file(trace_file, writer).ok
        score_with(writer.connection, Selection(), CRITERIA)
        score_with(writer.connection, Selection(), CRITERIA)  # the same turns again: once
        tagged = score_with(writer.connection, Selection(), CRITERIA)
        # As serve's online rules tag their scorings.
        writer.connection.execute(
            "UPDATE scorings SET selection = json_merge_patch(selection, "
            """'{"rule": "all_traffic", "rule_version": 1}') WHERE scoring_id = ?""",
            [tagged],
        )
    finally:
        writer.close()
    return path


def _expected(connection: Any) -> dict[tuple[Any, ...], dict[str, Any]]:
    """The hourly rows, summed here from each rule's latest score per turn and metric."""
    scores = dict_rows(connection, """
        SELECT g.selection->>'rule' AS rule, s.turn_id, s.metric, s.score, s.status,
               g.scored_at, s.scoring_id
        FROM scores s JOIN scorings g USING (scoring_id)
        WHERE g.run_id IS NULL AND s.level = 'turn'
        ORDER BY g.scored_at, s.scoring_id""")  # fmt: skip
    turns = {t["turn_id"]: t for t in dict_rows(connection, "SELECT * FROM turns")}
    latest: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in scores:  # oldest first: the latest wins
        latest[(row["rule"], row["turn_id"], row["metric"])] = row
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)
    for (rule, turn_id, metric), row in latest.items():
        t = turns[turn_id]
        hour = t["started_at"].replace(minute=0, second=0, microsecond=0)
        key = (rule, metric, "hour", hour, t["root_agent"], ",".join(t["models"]),
               t["service_name"], t["service_version"])  # fmt: skip
        groups[key].append({**row, "tokens": t["total_tokens"]})
    expected = {}
    for key, members in groups.items():
        values = [m["score"] for m in members if m["score"] is not None]
        expected[key] = {
            "turns_scored": len(members),
            "evaluated": len(values),
            "mean": pytest.approx(statistics.fmean(values)) if values else None,
            "p50": pytest.approx(statistics.median(values)) if values else None,
            "breaches": sum(m["status"] == "failed" for m in members),
            "errors": sum(m["status"] == "error" for m in members),
            "tokens": sum(m["tokens"] or 0 for m in members),
        }
    return expected


@costly
def test_hourly_rows_are_the_latest_score_per_rule_turn_and_metric(db: Path) -> None:
    connection = connect(db, read_only=True)
    try:
        found = dict_rows(connection, HOURLY)
        expected = _expected(connection)
    finally:
        connection.close()
    keys = COLUMNS.split(", ")
    got = {tuple(r[k] for k in keys): {k: v for k, v in r.items() if k not in keys} for r in found}
    assert got == expected
    rules = {key[0] for key in got}
    assert rules == {None, "all_traffic"}  # `tracegrade score`, and the serve rule's tag
    token_rows = [v for k, v in got.items() if k[1] == "token_usage" and k[0] is None]
    assert sum(v["turns_scored"] for v in token_rows) == 4  # three scorings, each turn once
    assert sum(v["breaches"] for v in token_rows) == 3  # the turns over 500 tokens


def test_a_day_sums_its_hours_and_rates_are_shares_of_the_turns_scored(db: Path) -> None:
    connection = connect(db, read_only=True)
    try:
        rows = dict_rows(connection, "SELECT * FROM metric_series")
    finally:
        connection.close()
    days: dict[tuple[Any, ...], int] = defaultdict(int)
    for r in rows:
        if r["grain"] == "hour":
            day = datetime.combine(r["bucket"].date(), datetime.min.time())
            days[(r["rule"], r["metric"], day, r["agent"], r["service_name"])] += r["turns_scored"]
    daily = {
        (r["rule"], r["metric"], r["bucket"], r["agent"], r["service_name"]): r["turns_scored"]
        for r in rows
        if r["grain"] == "day"
    }
    assert daily == dict(days)
    for r in rows:
        assert r["breach_rate"] == pytest.approx(r["breaches"] / r["turns_scored"])
        assert r["error_rate"] == pytest.approx(r["errors"] / r["turns_scored"])
    token = next(r for r in rows if r["metric"] == "token_usage")
    assert token["threshold"] == 500
    assert token["cost_usd"] is not None  # the cost_usd scores
    assert token["cost_usd"] > 0


@costly
def test_turns_carry_their_service_name_and_version(tmp_path: Path) -> None:
    db = tmp_path / "versions.duckdb"
    exporter = DuckDBSpanExporter(db)
    for seed, version in ((1, "1.4.2"), (2, None)):
        resource = {"service.name": f"shop-{seed}"} | (
            {"service.version": version} if version else {}
        )
        exporter.export(adk_like_spans(2, seed=seed, resource=resource))
    exporter.shutdown()
    connection = connect(db, read_only=True)
    try:
        found = connection.execute(
            "SELECT service_name, service_version, count(*) FROM turns GROUP BY ALL ORDER BY 1"
        ).fetchall()
    finally:
        connection.close()
    assert found == [("shop-1", "1.4.2", 2), ("shop-2", None, 2)]
