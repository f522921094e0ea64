"""A shard name belongs to one database (its owner file under `_shards/`), and an archiver
that cannot go on says why, at every pass, instead of claiming the spans are safe."""

from __future__ import annotations

import logging
import os
import socket
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.support.archive import hot_count, stored_spans, traffic_db
from tests.support.tiers import costly
from tracegrade.cli.main import app
from tracegrade.errors import ArchiveError
from tracegrade.server.archiving import ArchiveThread
from tracegrade.store import SpanWriter
from tracegrade.store import archive as archive_module
from tracegrade.store.archive import archive_database
from tracegrade.store.archive_location import FILES_GLOB, open_archive
from tracegrade.store.archive_owner import owner_file

runner = CliRunner()


@costly
def test_a_second_database_is_refused_the_shard_another_owns(tmp_path: Path) -> None:
    root = tmp_path / "archive"
    first = traffic_db(tmp_path / "a.duckdb", seeds=range(1, 2))
    second = traffic_db(tmp_path / "b.duckdb", seeds=range(2, 3))
    archive_database(first, root, shard="s0", retain_days=0)
    before = stored_spans(second)

    args = ["archive", "--db", str(second), "--archive", str(root), "--retain-days", "0"]
    result = runner.invoke(app, args)

    assert result.exit_code == 2
    line = result.output.strip()
    assert "\n" not in line
    assert f"archive {root}: shard 's0' belongs to database {first}" in line
    assert f"host {socket.gethostname()}, pid " in line
    assert "its own --shard" in line
    assert str(_owner(root)) in line
    assert stored_spans(second) == before  # nothing moved
    assert runner.invoke(app, [*args, "--shard", "s1"]).exit_code == 0
    assert hot_count(second) == 0


def _owner(root: Path) -> Path:
    return owner_file(root.resolve(), "s0")


@costly
def test_a_claim_is_taken_over_once_its_database_is_gone(tmp_path: Path) -> None:
    root = tmp_path / "archive"
    first = traffic_db(tmp_path / "a.duckdb", seeds=range(1, 2))
    archive_database(first, root, shard="s0", retain_days=0)
    second = traffic_db(tmp_path / "b.duckdb", seeds=range(2, 3))
    with pytest.raises(ArchiveError, match="belongs to database"):
        archive_database(second, root, shard="s0", retain_days=0)

    os.remove(first)  # gone for good: its files stay in the archive, its shard is free
    assert archive_database(second, root, shard="s0", retain_days=0).moved.spans > 0
    assert str(second) in _owner(root).read_text()
    # a new database made at the first's path is another database: the claim stays
    again = traffic_db(tmp_path / "a.duckdb", seeds=range(3, 4))
    with pytest.raises(ArchiveError, match=f"belongs to database {second}"):
        archive_database(again, root, shard="s0", retain_days=0)


@costly
def test_a_new_database_at_the_owners_path_takes_its_claim_over(tmp_path: Path) -> None:
    root, db = tmp_path / "archive", tmp_path / "hot.duckdb"
    archive_database(traffic_db(db, seeds=range(1, 2)), root, shard="s0", retain_days=0)
    os.remove(db)
    archive_database(traffic_db(db, seeds=range(2, 3)), root, shard="s0", retain_days=0)
    assert hot_count(db) == 0


@costly
def test_a_missing_committed_file_stops_archiving_loudly_until_restored(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db, root = traffic_db(tmp_path / "hot.duckdb", seeds=range(1, 3)), tmp_path / "archive"
    archive_database(db, root, shard="s0", retain_days=0)
    lost = sorted(root.glob(FILES_GLOB))[0]
    lost.rename(tmp_path / "backup.parquet")  # what the other database's recovery did
    traffic_db(db, seeds=range(3, 4))  # more spans to archive
    writer = SpanWriter.open(db)
    open_archive(writer.connection, root, "s0")
    thread = ArchiveThread(writer, retain_days=0, interval_s=5)
    cursor = writer.connection.cursor()

    for _ in range(2):  # every pass says so, and none claims the spans are in the database
        thread._pass(cursor)
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 2
    assert errors[0].startswith(
        f"archiving stopped, retrying every 5s: archive {root}: 1 archived files of this "
        "database are missing (day 2026-01-01; 30 spans, "
    )
    assert f"first {lost.relative_to(root)})" in errors[0]
    assert "restore them from a backup, or if they were deleted on purpose" in errors[0]
    assert "stay in the database" not in errors[0]

    (tmp_path / "backup.parquet").rename(lost)
    caplog.clear()
    caplog.set_level(logging.INFO, logger="tracegrade.serve")
    thread._pass(cursor)
    assert [r.getMessage() for r in caplog.records] == ["archived 15 spans into 1 files"]
    cursor.close()
    writer.close()
    assert hot_count(db) == 0


def test_a_batch_deleted_before_it_was_published_is_reported_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, root = traffic_db(tmp_path / "hot.duckdb", seeds=range(1, 2)), tmp_path / "archive"
    commit = archive_module._commit

    def commit_then_lose(connection: Any, where: Any, entry: list[object]) -> None:
        commit(connection, where, entry)
        (root.resolve() / str(entry[1])).unlink()  # as the other database's recovery did

    monkeypatch.setattr(archive_module, "_commit", commit_then_lose)
    with pytest.raises(ArchiveError, match="was deleted before it was published: the spans"):
        archive_database(db, root, shard="s0", retain_days=0)


@costly
def test_databases_that_shared_a_shard_part_without_losing_a_span(tmp_path: Path) -> None:
    """Both archived as s0 by an older tracegrade (which wrote no owner file): the first to
    archive now keeps the name, the other is refused it and archives on as s1, and the
    archive holds every span of both once."""
    root, a, b = tmp_path / "archive", tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    for db, seeds in ((a, range(1, 3)), (b, range(3, 5))):
        archive_database(traffic_db(db, seeds=seeds), root, shard="s0", retain_days=0)
        _owner(root).unlink()
    traffic_db(a, seeds=range(5, 6))
    traffic_db(b, seeds=range(6, 7))
    everything = sorted(stored_spans(a, root) + stored_spans(b))

    assert archive_database(a, root, shard="s0", retain_days=0).moved.spans > 0
    with pytest.raises(ArchiveError, match=f"shard 's0' belongs to database {a}"):
        archive_database(b, root, shard="s0", retain_days=0)
    assert archive_database(b, root, shard="s1", retain_days=0).moved.spans > 0

    assert hot_count(a) == hot_count(b) == 0
    assert stored_spans(a, root) == everything
    assert {p.parts[-4] for p in root.glob(FILES_GLOB)} == {"shard=s0", "shard=s1"}
