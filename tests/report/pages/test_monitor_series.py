"""The monitor page reads only its window (queries/report/series_points.sql builds the series
from the window's scores and their traces' spans with the views' macros), and shows the
numbers the documented `metric_series` view gives on the same file: for each window, rule,
agent and service filter, the page's points equal the view's rows summed as the page sums
them.

The traffic: two releases of one service and two agents' worth of ADK-shaped spans from the
real OTel SDK, through the real exporter, spread over 40 days (so 24h, 7d and 30d cut
through it); scored by two online rules' passes (scoring/online.py, as serve runs them), one
of them twice (a backfilled new version), and once by `tracegrade score` (rule NULL).

The writer kept the turns' facts (store/turn_facts.py), which the page reads where they are
fresh; a copy of the file where one trace's facts went stale (a late span) and another's
are missing shows the page rebuilding those two from spans and still equal to the view."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from tests.support.cli import invoke
from tests.support.span_factory import adk_like_spans
from tests.support.tiers import costly
from tracegrade.capture import DuckDBSpanExporter
from tracegrade.report.pages.monitor import WINDOWS, build_monitor_page, series_points
from tracegrade.scoring.judging.settings import JudgeSettings
from tracegrade.scoring.metrics import available_metrics
from tracegrade.scoring.online import activate, horizon_us, score_pass
from tracegrade.scoring.rules import parse_rule
from tracegrade.store import LocalReader, SpanWriter, connect, records
from tracegrade.store.turn_facts import version

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


# The traffic's traces with fresh facts, by the rule the page reads them by.
FRESH = "SELECT trace_id FROM tg_fresh_fact_traces('spans', 'turn_fact_traces', ?)"
# The traces of the turns 2 h and 30 min ago, newest first: in every window.
RECENT = """
SELECT trace_id FROM turns WHERE start_ns >= ? GROUP BY trace_id ORDER BY min(start_ns) DESC
"""


@pytest.fixture(scope="module")
def mixed(db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of `db` where one recent trace's facts are stale (a span stored after them,
    its facts tampered with so that reading them would show) and another's are missing."""
    path = tmp_path_factory.mktemp("mixed") / "mixed.duckdb"
    shutil.copyfile(db, path)
    with connect(path) as connection:
        recent = [
            r[0] for r in connection.execute(RECENT, [time.time_ns() - 3 * HOUR_NS]).fetchall()
        ]
        stale, missing = recent[0], recent[1]
        # A late span: a copy of one of the trace's child spans, under a new id.
        ((late,),) = connection.execute(
            "INSERT INTO spans SELECT * REPLACE ('1a7e' || substr(span_id, 5) AS span_id) "
            "FROM spans WHERE trace_id = ? AND parent_span_id IS NOT NULL "
            "ORDER BY span_id LIMIT 1",
            [stale],
        ).fetchall()
        assert late == 1
        connection.execute(
            "UPDATE turn_facts SET root_agent = 'tampered', service_name = 'tampered' "
            "WHERE trace_id = ?",
            [stale],
        )
        for table in ("turn_facts", "turn_fact_traces"):
            connection.execute(f"DELETE FROM {table} WHERE trace_id = ?", [missing])  # noqa: S608
        fresh = {r[0] for r in connection.execute(FRESH, [version()]).fetchall()}
    assert stale not in fresh
    assert missing not in fresh
    assert set(recent) - {stale, missing} <= fresh, "the other recent traces read facts"
    return path


@costly
def test_the_writer_kept_fresh_facts_of_every_trace(db: Path) -> None:
    with connect(db, read_only=True) as connection:
        fresh = {r[0] for r in connection.execute(FRESH, [version()]).fetchall()}
        traces = {
            r[0] for r in connection.execute("SELECT DISTINCT trace_id FROM turns").fetchall()
        }
    assert traces
    assert fresh == traces


FILTERS = [
    (None, None, None),
    ("budgets", None, None),
    ("tokens", None, "cart"),
    (None, "shop", None),
    ("budgets", "nobody", None),
]


@pytest.mark.parametrize("facts", ["fresh", "mixed"])
@pytest.mark.parametrize("window", list(WINDOWS))
@pytest.mark.parametrize(("rule", "agent", "service"), FILTERS)
def test_the_page_s_points_are_the_view_s(
    request: pytest.FixtureRequest,
    facts: str,
    window: str,
    rule: str | None,
    agent: str | None,
    service: str | None,
) -> None:
    path = request.getfixturevalue("db" if facts == "fresh" else "mixed")
    seconds, grain = WINDOWS[window]
    since_us = time.time_ns() // 1000 - seconds * 1_000_000
    params = [grain, since_us, rule, agent, service]
    with connect(path, read_only=True) as connection:
        reader = LocalReader(connection)
        page = series_points(reader, grain, since_us, rule, agent, service)
        view = records(reader, VIEW_POINTS, params)
    assert _rounded(page) == _rounded(view)  # sums in another order: float noise only
    if agent != "nobody" and (window != "24h" or service is None):
        assert page, "the window holds scored turns"


def test_the_page_reads_the_fresh_traces_facts(mixed: Path) -> None:
    """What the facts of a fresh trace say is what the page shows (tampered with here, so
    the view, built from the spans, disagrees): the page did not rebuild that trace."""
    path = mixed.with_name("tampered.duckdb")
    shutil.copyfile(mixed, path)
    since_us = time.time_ns() // 1000 - 86_400 * 1_000_000
    with connect(path) as connection:
        (trace,) = (
            connection.execute(RECENT + " LIMIT 1 OFFSET 2", [since_us * 1000]).fetchone() or ()
        )
        connection.execute(
            "UPDATE turn_facts SET root_agent = 'tampered' WHERE trace_id = ?", [trace]
        )
    with connect(path, read_only=True) as connection:
        reader = LocalReader(connection)
        page = series_points(reader, "hour", since_us, None, "tampered", None)
        view = records(reader, VIEW_POINTS, ["hour", since_us, None, "tampered", None])
    assert page
    assert not view
    assert sum(int(str(p["turns_scored"])) for p in page) >= 1


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
