"""Retention and compaction (`tracegrade archive --prune-days`, `--prune-missing`,
`--compact`): recorded in the manifest, so later passes and the views go on, and every
span that stays is read once, even when compaction stops half way."""

from __future__ import annotations

import datetime as dt
import logging
import shutil
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

import tracegrade.store.archive_upkeep as upkeep
from tests.support.archive import hot_count, stored_spans, traffic_db
from tests.support.tiers import costly
from tracegrade.cli.main import app
from tracegrade.store import connect
from tracegrade.store.archive_files import STAGED_SUFFIX, STAGING_DIR
from tracegrade.store.archive_location import FILES_GLOB, location

pytestmark = costly  # every test here: see tests.support.tiers.costly

runner = CliRunner()
DAY_ONE, DAY_TWO = range(1, 3), range(90, 92)  # 2026-01-01 hour 0; 2026-01-02 hour 1


def _archive(db: Path, root: Path, *extra: str, code: int = 0) -> str:
    args = ["archive", "--db", str(db), "--archive", str(root), "--retain-days", "0", *extra]
    result = runner.invoke(app, args)
    assert result.exit_code == code, result.output
    return result.output


def _two_days(tmp_path: Path) -> tuple[Path, Path, list[tuple[object, ...]]]:
    db, root = traffic_db(tmp_path / "hot.duckdb", seeds=DAY_ONE), tmp_path / "archive"
    traffic_db(db, seeds=DAY_TWO)
    spans = stored_spans(db)
    _archive(db, root)
    return db, root, spans


def _view_count(db: Path) -> int:
    connection = connect(db, read_only=True)
    ((count,),) = connection.execute("SELECT count(*) FROM spans").fetchall()
    connection.close()
    return int(count)


def _pruned(db: Path) -> list[tuple[object, ...]]:
    connection = duckdb.connect(str(db), read_only=True)
    rows = connection.execute(
        "SELECT day::VARCHAR, reason, sum(spans) FROM archive_pruned GROUP BY ALL ORDER BY ALL"
    ).fetchall()
    connection.close()
    return rows


def _days_on_disk(root: Path) -> list[str]:
    return sorted(p.name for p in root.glob("shard=*/day=*"))


def test_prune_days_deletes_whole_old_days_and_records_them(tmp_path: Path) -> None:
    db, root, spans = _two_days(tmp_path)
    connection = connect(db)
    where = location(connection)
    assert where is not None
    now = int(dt.datetime(2026, 1, 3, 12, tzinfo=dt.UTC).timestamp() * 1e9)

    assert upkeep.prune_older(connection, where, 2, now_ns=now).files == 0  # cut: Jan 1
    pruned = upkeep.prune_older(connection, where, 1.5, now_ns=now)  # cut: Jan 2
    connection.close()

    assert (pruned.files, pruned.days) == (1, ("2026-01-01",))
    assert _days_on_disk(root) == ["day=2026-01-02"]
    assert _pruned(db) == [("2026-01-01", "older-than", pruned.spans)]
    assert pruned.spans == 30  # two seeds of 3 turns of 5 spans
    assert _view_count(db) == len(spans) - pruned.spans
    traffic_db(db, seeds=range(3, 4))  # later passes go on, into the pruned day too
    assert "archived 15 spans into 1 file" in _archive(db, root)
    assert _view_count(db) == len(spans) - pruned.spans + 15


def test_prune_days_from_the_command_line(tmp_path: Path) -> None:
    db, root, spans = _two_days(tmp_path)
    assert "pruned" not in _archive(db, root, "--prune-days", "100000")
    out = _archive(db, root, "--prune-days", "300")  # both days are older than that now
    assert f"pruned: 2 files, {len(spans)} spans (days 2026-01-01 to 2026-01-02)" in out
    assert _days_on_disk(root) == []
    assert (_view_count(db), hot_count(db)) == (0, 0)


def test_a_day_deleted_by_hand_is_reported_once_then_recorded(tmp_path: Path) -> None:
    db, root, spans = _two_days(tmp_path)
    gone = next(root.glob("shard=s0/day=2026-01-01"))
    shutil.rmtree(gone)
    traffic_db(db, seeds=range(3, 4))

    out = _archive(db, root, code=2)
    assert out.count("\n") == 1  # one line, no traceback
    assert "1 archived files of this database are missing (day 2026-01-01;" in out
    assert "--prune-missing" in out
    assert hot_count(db) == 15  # nothing moved meanwhile

    out = _archive(db, root, "--prune-missing")
    assert "recorded as deleted: 1 file, 30 spans (days 2026-01-01 to 2026-01-01)" in out
    assert "archived 15 spans" in out
    assert _pruned(db) == [("2026-01-01", "missing", 30)]
    assert "archived 0 spans" in _archive(db, root)  # later runs no longer fail
    assert _view_count(db) == len(spans) - 30 + 15


def _many_files(tmp_path: Path) -> tuple[Path, Path, list[tuple[object, ...]]]:
    """One hour partition archived in three passes (three files), another in one."""
    db, root = traffic_db(tmp_path / "hot.duckdb", seeds=range(1, 2)), tmp_path / "archive"
    for seeds in (range(1, 2), range(2, 3), range(3, 4)):
        if seeds.start > 1:
            traffic_db(db, seeds=seeds)
        _archive(db, root)
    traffic_db(db, seeds=DAY_TWO)
    _archive(db, root)
    return db, root, stored_spans(db, root)


def test_compact_rewrites_a_partition_into_one_file_keeping_every_span_once(
    tmp_path: Path,
) -> None:
    db, root, spans = _many_files(tmp_path)
    hour_zero = root / "shard=s0/day=2026-01-01/hour=0"
    assert len(list(hour_zero.glob("*.parquet"))) == 3

    out = _archive(db, root, "--compact")

    assert "compacted 3 files into 1 file (1 partition)" in out
    assert len(list(hour_zero.glob("*.parquet"))) == 1
    assert len(list(root.glob(FILES_GLOB))) == 2
    assert stored_spans(db, root) == spans
    assert _view_count(db) == len(spans)
    assert _pruned(db) == [("2026-01-01", "compacted", 45)]
    assert "compacted" not in _archive(db, root, "--compact")  # nothing left to compact


@pytest.mark.parametrize("stop_before", ["drop_pruned", "publish"])
def test_compaction_stopped_half_way_is_read_once_and_finished_by_the_next_open(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    stop_before: str,
) -> None:
    """Stopped after its commit: before the old files are deleted, or before the new one is
    published (the old ones deleted already). A reader then reads every span once."""
    db, root, spans = _many_files(tmp_path)

    def crash(*args: object) -> None:
        raise KeyboardInterrupt  # as a kill would stop it there

    monkeypatch.setattr(upkeep, stop_before, crash)
    _archive(db, root, "--compact", code=130)
    monkeypatch.undo()
    assert len(list((root / STAGING_DIR).rglob(f"*{STAGED_SUFFIX}"))) == 1

    with caplog.at_level(logging.WARNING, logger="tracegrade.archive"):
        assert _view_count(db) == len(spans)
    assert "published 1 committed files (45 spans)" in caplog.text
    assert stored_spans(db, root) == spans
    assert len(list(root.glob(FILES_GLOB))) == 2
