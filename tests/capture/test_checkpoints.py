"""The exporter checkpoints a file of its own every 256 MB of log, and leaves a shared one be."""

from __future__ import annotations

from pathlib import Path

import duckdb

from tests.support.span_factory import adk_like_spans
from tests.support.tiers import costly
from tracegrade.capture import DuckDBSpanExporter
from tracegrade.store import SpanWriter


def _threshold(connection: duckdb.DuckDBPyConnection) -> str:
    query = "SELECT current_setting('checkpoint_threshold')"
    return str(connection.execute(query).fetchall()[0][0])


@costly
def test_an_exporter_of_its_own_file_checkpoints_every_256_mb(db_path: Path) -> None:
    exporter = DuckDBSpanExporter(db_path)
    assert _threshold(exporter.writer.connection) == "244.1 MiB"  # 256 MB
    spans = adk_like_spans(3)
    exporter.export(spans)
    exporter.shutdown()  # writes what waits and checkpoints the log's tail
    assert not Path(f"{db_path}.wal").exists()
    reopened = SpanWriter.open(db_path)
    assert reopened.connection.execute("SELECT count(*) FROM spans").fetchall()[0][0] == 15
    reopened.close()


def test_a_shared_writer_keeps_its_owners_settings(writer: SpanWriter) -> None:
    before = _threshold(writer.connection)
    DuckDBSpanExporter(writer=writer)
    assert _threshold(writer.connection) == before
