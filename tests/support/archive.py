"""Databases to archive: ADK-shaped traffic over many hours, and the report tests' real
eval runs; and reading what a database and its archive hold, span by span."""

from __future__ import annotations

from pathlib import Path

import duckdb

from tests.support.new_database import new_database
from tests.support.paths import DATA
from tests.support.span_factory import adk_like_spans, session_spans
from tracegrade.capture import DuckDBSpanExporter
from tracegrade.ingest.files import ingest_file
from tracegrade.store import SpanWriter
from tracegrade.store.archive_location import FILES_GLOB

RUNS_FIXTURE = DATA / "report" / "report_runs.otlp.jsonl"
# Each seed's clock starts 1000 s after the previous one's: 40 seeds span 11 hours.
TRAFFIC_SEEDS = range(1, 41)
# Every span's key and content, to compare what a store held with what it holds now.
SPAN_KEY = (
    "trace_id, span_id, parent_span_id, name, start_ns, end_ns, status_code, "
    "attributes::VARCHAR AS a, resource::VARCHAR AS r, events::VARCHAR AS e"
)


def traffic_db(path: Path, seeds: range = TRAFFIC_SEEDS, turns: int = 3) -> Path:
    writer = SpanWriter.open(new_database(path))
    exporter = DuckDBSpanExporter(writer=writer)
    for seed in seeds:
        exporter.export(adk_like_spans(turns, seed=seed, random_ids=True))
    exporter.force_flush()
    writer.close()
    return path


def long_session_db(path: Path, now_ns: int) -> Path:
    """An application's session wrapped in one trace of its own: a turn 3 days before
    `now_ns` and one an hour before it (1,000 prompt tokens each), under a root span begun
    with the first; and a trace of one turn 2 days before `now_ns`."""
    writer = SpanWriter.open(new_database(path))
    exporter = DuckDBSpanExporter(writer=writer)
    hour = 3600 * 10**9
    exporter.export(session_spans([now_ns - 72 * hour, now_ns - hour], seed=1))
    exporter.export(session_spans([now_ns - 48 * hour], seed=2))
    exporter.force_flush()
    writer.close()
    return path


def adk_traffic_db(path: Path) -> Path:
    """Real ADK traffic with the user's text captured (tests/data/traces/adk_v2_*)."""
    writer = SpanWriter.open(new_database(path))
    for trace_file in sorted((DATA / "traces").glob("adk_v2_*.otlp.jsonl")):
        ingest_file(trace_file, writer)
    writer.close()
    return path


def eval_runs_db(path: Path) -> Path:
    writer = SpanWriter.open(new_database(path))
    ingest_file(RUNS_FIXTURE, writer)
    writer.close()
    return path


def stored_spans(db: Path, archive: Path | None = None) -> list[tuple[object, ...]]:
    """Every span in the hot table of `db` and in the archive's published files, sorted."""
    connection = duckdb.connect()
    connection.execute(f"ATTACH '{db}' AS hot (READ_ONLY)")
    query = f"SELECT {SPAN_KEY} FROM hot.spans"  # noqa: S608 — constants and test paths
    if archive is not None and any(archive.glob(FILES_GLOB)):
        query += (
            f" UNION ALL SELECT {SPAN_KEY} FROM read_parquet('{archive / FILES_GLOB}', "  # noqa: S608
            "hive_partitioning = true)"
        )
    rows = connection.execute(f"{query} ORDER BY ALL").fetchall()
    connection.close()
    return rows


def hot_count(db: Path) -> int:
    connection = duckdb.connect(str(db), read_only=True)
    ((count,),) = connection.execute("SELECT count(*) FROM spans").fetchall()
    connection.close()
    return int(count)
