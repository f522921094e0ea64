"""The monitor page reads only its window (queries/report/series_points.sql builds the series
from the window's scores and their traces' spans with the views' macros), and shows the
numbers the documented `metric_series` view gives on the same file: for each window, rule,
agent and service filter, the page's points equal the view's rows summed as the page sums
them.

The traffic: two releases of one service and two agents' worth of ADK-shaped spans from the
real OTel SDK, through the real exporter, spread over 40 days (so 24h, 7d and 30d cut
through it); scored by two online rules' passes (scoring/online.py, as serve runs them), one
of them twice (a backfilled new version), and once by `tracegrade score` (rule NULL)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.support.cli import invoke
from tests.support.span_factory import adk_like_spans
from tracegrade.capture import DuckDBSpanExporter
from tracegrade.report.pages.monitor import WINDOWS, build_monitor_page
from tracegrade.report.pages.sql import rows
from tracegrade.scoring.judging.settings import JudgeSettings
from tracegrade.scoring.metrics import available_metrics
from tracegrade.scoring.online import activate, horizon_us, score_pass
from tracegrade.scoring.rules import parse_rule
from tracegrade.store import LocalReader, SpanWriter, connect, records

HOUR_NS = 3600 * 10**9
SPECS = available_metrics()
# What the page read before: the documented view, summed per service version.
VIEW_POINTS = """
SELECT metric, epoch_us(bucket) AS bucket_us, service_version,
       sum(turns_scored)::BIGINT AS turns_scored,
       sum(mean * evaluated) / nullif(sum(evaluated), 0) AS mean, max(p95) AS p95,
       sum(breaches)::BIGINT AS breaches, sum(errors)::BIGINT AS errors,
       sum(breaches) / sum(turns_scored) AS breach_rate, max(threshold) AS threshold,
       min(first_us) AS first_us
FROM metric_series
WHERE grain = $1
  AND epoch_us(bucket) >= $2 - (CASE WHEN $1 = 'day' THEN 86400 ELSE 3600 END)::BIGINT * 1000000
  AND ($3::VARCHAR IS NULL OR rule = $3)
  AND ($4::VARCHAR IS NULL OR agent = $4)
  AND ($5::VARCHAR IS NULL OR service_name = $5)
GROUP BY ALL
ORDER BY metric, bucket_us, service_version NULLS FIRST
"""
RULES = [
    {"name": "budgets", "criteria": {"tool_error_rate": {"max": 0.5}, "latency": {"max": 5}}},
    {"name": "tokens", "criteria": {"token_usage": {"max": 500}}},
]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("monitor") / "monitor.duckdb"
    now = time.time_ns()
    writer = SpanWriter.open(path)
    try:
        exporter = DuckDBSpanExporter(writer=writer)
        connection = writer.connection.cursor()
        rules = [parse_rule(raw, SPECS, "test rule", backfill=True) for raw in RULES]
        for rule in rules:
            activate(connection, rule)
        # Hours back, release, service: a day's grain and an hour's both cut through these.
        batches = [(40 * 24, "1.0.0", "shop"), (10 * 24, "1.0.0", "shop"), (30, "1.0.0", "cart"),
                   (5, "1.1.0", "shop"), (2, "1.1.0", "cart"), (0.5, "1.1.0", "shop")]  # fmt: skip
        for seed, (hours, version, service) in enumerate(batches, start=1):
            resource = {"service.name": service, "service.version": version}
            start = now - int(hours * HOUR_NS)
            spans = adk_like_spans(3, seed=seed, resource=resource, step_ns=seed * 2_000_000,
                                   start_ns=start, failing_tools={seed % 3})  # fmt: skip
            assert exporter.export(spans).name == "SUCCESS"
            assert exporter.force_flush()
            for rule in rules:
                score_pass(connection, rule, horizon_us(connection, 0), SPECS, JudgeSettings())
        again = parse_rule({**RULES[0], "sample": 0.999}, SPECS, "test rule", backfill=True)
        activate(connection, again)  # a new version: every turn of `budgets` scored twice
        score_pass(connection, again, horizon_us(connection, 0), SPECS, JudgeSettings())
    finally:
        writer.close()
    scored = invoke("score", "--db", str(path), "--since", "60d")  # rule NULL
    assert scored.exit_code in (0, 1), scored.output
    return path


FILTERS = [
    (None, None, None),
    ("budgets", None, None),
    ("tokens", None, "cart"),
    (None, "shop", None),
    ("budgets", "nobody", None),
]


@pytest.mark.parametrize("window", list(WINDOWS))
@pytest.mark.parametrize(("rule", "agent", "service"), FILTERS)
def test_the_page_s_points_are_the_view_s(
    db: Path, window: str, rule: str | None, agent: str | None, service: str | None
) -> None:
    seconds, grain = WINDOWS[window]
    since_us = time.time_ns() // 1000 - seconds * 1_000_000
    params = [grain, since_us, rule, agent, service]
    with connect(db, read_only=True) as connection:
        reader = LocalReader(connection)
        page = rows(reader, "series_points", *params)
        view = records(reader, VIEW_POINTS, params)
    assert _rounded(page) == _rounded(view)  # sums in another order: float noise only
    if agent != "nobody" and (window != "24h" or service is None):
        assert page, "the window holds scored turns"


def _rounded(found: list[dict[str, object]]) -> list[dict[str, object]]:
    return [{k: round(v, 9) if isinstance(v, float) else v for k, v in r.items()} for r in found]


def test_the_page_plots_what_the_window_holds(db: Path) -> None:
    with connect(db, read_only=True) as connection:
        reader = LocalReader(connection)
        day = build_monitor_page(reader, "24h", "budgets")
        month = build_monitor_page(reader, "30d", "budgets")
        ((agents,),) = connection.execute("SELECT list(DISTINCT root_agent) FROM turns").fetchall()
    latency = next(p for p in day.plots if p.metric == "latency")
    # The last 24h: the turns 5 h, 2 h and 30 min ago (3 each); 30 h ago is the day before.
    assert sum(p.turns for p in latency.points) == 9
    assert [m.label for m in day.versions] == []  # one release in the day
    month_latency = next(p for p in month.plots if p.metric == "latency")
    assert sum(p.turns for p in month_latency.points) == 15  # 40 days ago is outside
    assert [m.label for m in month.versions] == ["version 1.1.0"]
    assert agents  # the turns have an agent: the agent filter above is not vacuous
