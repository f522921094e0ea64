"""A span is stored once across the hot table and the archive: re-ingesting a file after
archiving, re-sending archived spans, or a late span of an archived trace adds no copy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
from typer.testing import CliRunner

from tests.support.archive import adk_traffic_db, hot_count, stored_spans, traffic_db
from tests.support.paths import DATA
from tests.support.span_factory import adk_like_spans
from tests.support.tiers import costly
from tracegrade.capture import DuckDBSpanExporter
from tracegrade.cli.main import app
from tracegrade.ingest.files import ingest_file
from tracegrade.store import SpanWriter, connect
from tracegrade.store.archive import archive_database, archive_pass
from tracegrade.store.archive_location import (
    FILES_GLOB,
    hot_spans,
    layer_archive,
    open_archive,
)
from tracegrade.store.rows import SpanRow
from tracegrade.store.writer import WriteResult

pytestmark = costly  # every test here: see tests.support.tiers.costly

runner = CliRunner()
TRACE_FILES = sorted((DATA / "traces").glob("adk_v2_*.otlp.jsonl"))


def _read(db: Path, query: str) -> list[tuple[Any, ...]]:
    connection = connect(db, read_only=True)
    rows = connection.execute(query).fetchall()
    connection.close()
    return rows


def _view_rows(db: Path) -> list[tuple[Any, ...]]:
    """Every row of the `spans` view (hot + archive), duplicates kept."""
    return _read(db, "SELECT trace_id, span_id FROM spans ORDER BY ALL")


def _tokens(db: Path) -> list[tuple[Any, ...]]:
    return _read(db, "SELECT turn_id, total_tokens FROM turns ORDER BY ALL")


def test_reingesting_a_file_after_archiving_stores_each_span_once(tmp_path: Path) -> None:
    db, root = adk_traffic_db(tmp_path / "hot.duckdb"), tmp_path / "archive"
    spans, rows, tokens = stored_spans(db), _view_rows(db), _tokens(db)
    assert any(total for _, total in tokens)
    archive_database(db, root, shard="s0", retain_days=0)
    assert hot_count(db) == 0

    writer = SpanWriter.open(db)
    reports = [ingest_file(path, writer) for path in TRACE_FILES]
    writer.close()

    assert sum(r.duplicates for r in reports) == len(spans)  # counted as re-deliveries
    assert hot_count(db) == 0
    assert _view_rows(db) == rows
    assert stored_spans(db, root) == spans
    assert _tokens(db) == tokens


def test_a_late_span_of_an_archived_trace_is_stored_once(tmp_path: Path) -> None:
    db, root = traffic_db(tmp_path / "hot.duckdb"), tmp_path / "archive"
    archived = stored_spans(db)
    archive_database(db, root, shard="s0", retain_days=0)
    old = _row(db, "SELECT * EXCLUDE (ingested_at, attrs) FROM spans ORDER BY trace_id LIMIT 1")
    late = old._replace(span_id="00000000000000ff", end_ns=old.end_ns + 10**9)

    writer = SpanWriter.open(db)
    assert writer.write([old, late]) == WriteResult(
        1, 1
    )  # the archived span is dropped, the new kept
    assert writer.write([late, old]) == WriteResult(0, 2)  # the late span is now a hot duplicate
    writer.close()
    assert hot_count(db) == 1
    assert len(_view_rows(db)) == len(archived) + 1

    # Archived again, the late span goes into a new file; re-sent, it is dropped as archived.
    done = archive_database(db, root, shard="s0", retain_days=0)
    assert (done.moved.spans, hot_count(db)) == (1, 0)
    writer = SpanWriter.open(db)
    assert writer.write([late, old]) == WriteResult(0, 2)
    writer.close()
    assert len(_view_rows(db)) == len(set(_view_rows(db))) == len(archived) + 1


def _row(db: Path, query: str) -> SpanRow:
    ((*values,),) = _read(db, query)
    return SpanRow(*values)


def test_spans_archived_by_a_live_writer_are_not_stored_again(tmp_path: Path) -> None:
    """As in `serve`: the writer that stores spans learns of each batch as it commits."""
    writer = SpanWriter.open(tmp_path / "hot.duckdb")
    open_archive(writer.connection, tmp_path / "archive", "s0")
    exporter = DuckDBSpanExporter(writer=writer)
    spans = adk_like_spans(3, seed=5, random_ids=True)
    exporter.export(spans)
    exporter.force_flush()
    assert archive_pass(writer.connection.cursor(), 0, writer=writer).spans == len(spans)
    assert writer.archived.horizon is not None

    exporter.export(spans)
    exporter.force_flush()
    connection = writer.connection
    hot = f"SELECT count(*) FROM {hot_spans(connection)}"  # noqa: S608 — the catalog's name
    assert connection.execute(hot).fetchall() == [(0,)]
    assert layer_archive(connection)  # `spans` now reads the archive's first file as well
    rows = connection.execute("SELECT count(*), count(DISTINCT (trace_id, span_id)) FROM spans")
    assert rows.fetchall() == [(len(spans), len(spans))]
    writer.close()


def test_fresh_spans_are_not_checked_against_the_archive(tmp_path: Path) -> None:
    """Spans ending after every archived span cannot be in the archive: no file is read."""
    db, root = traffic_db(tmp_path / "hot.duckdb", seeds=range(1, 3)), tmp_path / "archive"
    archive_database(db, root, shard="s0", retain_days=0)
    writer = SpanWriter.open(db)
    for published in root.glob("shard=*/*/*/*.parquet"):
        published.write_bytes(b"not parquet")  # reading any file would now fail
    fresh = traffic_db(tmp_path / "fresh.duckdb", seeds=range(50, 51))
    rows = _read(fresh, "SELECT * EXCLUDE (ingested_at, attrs) FROM spans")
    assert writer.archived.horizon is not None
    assert min(row[6] for row in rows) > writer.archived.horizon
    assert writer.write([SpanRow(*row) for row in rows]).stored == len(rows)
    writer.close()


def test_a_database_archived_by_an_older_tracegrade_stores_once_and_loses_its_copies(
    tmp_path: Path,
) -> None:
    """Upgraded, its files get the widest end range their spans can have, so re-sent spans
    are still dropped; the copies the older tracegrade stored hot are deleted, not archived."""
    db, root = adk_traffic_db(tmp_path / "hot.duckdb"), tmp_path / "archive"
    rows = _view_rows(db)
    archive_database(db, root, shard="s0", retain_days=0)
    _as_an_older_tracegrade_left_it(db, root)

    writer = SpanWriter.open(db)  # migrated on open
    assert [ingest_file(path, writer).stored for path in TRACE_FILES] == [0] * len(TRACE_FILES)
    writer.close()
    assert _view_rows(db) == sorted(rows * 2)  # the older version's copies, still hot
    result = runner.invoke(app, ["archive", "--db", str(db), "--archive", str(root)])
    assert result.exit_code == 0, result.output
    assert f"archived 0 spans into 0 files under {root}; deleted {len(rows)} hot copies" in (
        result.output
    )
    assert _view_rows(db) == rows
    assert hot_count(db) == 0


def _as_an_older_tracegrade_left_it(db: Path, root: Path) -> None:
    """No end times in the manifest, no shard claim, and every archived span stored again."""
    connection = duckdb.connect(str(db))
    connection.execute("ALTER TABLE archive_manifest DROP COLUMN min_end_ns")
    connection.execute("ALTER TABLE archive_manifest DROP COLUMN max_end_ns")
    connection.execute("ALTER TABLE archive_location DROP COLUMN database_id")
    connection.execute("DELETE FROM tracegrade_migrations WHERE name = '006_archive_once'")
    connection.execute(
        "INSERT INTO spans BY NAME SELECT * EXCLUDE (shard, day, hour) FROM read_parquet(?, "
        "hive_partitioning = true)",
        [str(root / FILES_GLOB)],
    )
    connection.close()
    (root / "_shards" / "s0.owner").unlink()
