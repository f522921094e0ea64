"""kill -9 during archiving loses and duplicates no span: at the two steps where a crash
leaves work half done (file written but not committed; committed but not published), and
at random moments; the next run finishes or undoes it."""

from __future__ import annotations

import logging
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from tests.support.archive import hot_count, stored_spans, traffic_db
from tracegrade.store import connect
from tracegrade.store.archive_files import STAGED_SUFFIX, STAGING_DIR
from tracegrade.store.archive_location import FILES_GLOB

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


def _start(db: Path, root: Path, *step: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.archive.victim", str(db), str(root), *step],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _kill_at(db: Path, root: Path, step: str, tmp_path: Path) -> None:
    marker = tmp_path / f"{step}.marker"
    victim = _start(db, root, step, str(marker))
    deadline = time.monotonic() + 120
    while not marker.exists():
        if victim.poll() is not None:
            pytest.fail(victim.communicate()[0])
        assert time.monotonic() < deadline, "the archiver never reached its stopping point"
        time.sleep(0.05)
    victim.send_signal(signal.SIGKILL)
    victim.communicate()  # reaps it and closes its pipe


def _finish(db: Path, root: Path) -> str:
    victim = _start(db, root)
    out, _ = victim.communicate(timeout=300)
    assert victim.returncode == 0, out
    return out


def _tmp_files(root: Path) -> list[Path]:
    return sorted((root / STAGING_DIR).rglob(f"*{STAGED_SUFFIX}"))


def _manifest(db: Path) -> int:
    connection = duckdb.connect(str(db), read_only=True)
    ((rows,),) = connection.execute("SELECT count(*) FROM archive_manifest").fetchall()
    connection.close()
    return int(rows)


def test_kill_between_write_and_commit_and_between_commit_and_publish(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db, root = traffic_db(tmp_path / "hot.duckdb"), tmp_path / "archive"
    spans = stored_spans(db)

    _kill_at(db, root, "written", tmp_path)
    assert len(_tmp_files(root)) == 1  # a file nobody committed
    assert hot_count(db) == len(spans)
    assert stored_spans(db, root) == spans

    _kill_at(db, root, "committed", tmp_path)  # its recovery deletes the orphan first
    assert len(_tmp_files(root)) == 1
    assert _manifest(db) == 1
    assert not list(root.glob(FILES_GLOB))
    assert len(stored_spans(db, root)) < len(spans)  # in the unpublished file meanwhile

    # A reader opening the database publishes it, loudly, rather than missing its spans.
    with caplog.at_level(logging.WARNING, logger="tracegrade.archive"):
        reader = connect(db, read_only=True)
    ((seen,),) = reader.execute("SELECT count(*) FROM spans").fetchall()
    reader.close()
    assert seen == len(spans)
    assert "published 1 committed files" in caplog.text
    assert not _tmp_files(root)
    assert len(list(root.glob(FILES_GLOB))) == 1

    out = _finish(db, root)
    assert "rolled_forward 0" in out
    assert stored_spans(db, root) == spans
    assert hot_count(db) == 0
    assert not _tmp_files(root)
    assert len(list(root.glob(FILES_GLOB))) == _manifest(db) == 12


def test_kill_at_random_moments(tmp_path: Path) -> None:
    db, root = traffic_db(tmp_path / "hot.duckdb"), tmp_path / "archive"
    spans = stored_spans(db)
    rng = random.Random(18)
    for _ in range(5):
        victim = _start(db, root)
        try:
            victim.communicate(timeout=rng.uniform(0.5, 4.0))
        except subprocess.TimeoutExpired:
            victim.send_signal(signal.SIGKILL)
            victim.communicate()
    _finish(db, root)
    assert stored_spans(db, root) == spans
    assert hot_count(db) == 0
    assert not _tmp_files(root)
    assert len(list(root.glob(FILES_GLOB))) == _manifest(db) == 12
