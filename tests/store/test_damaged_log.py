"""A damaged write-ahead log is never dropped silently, through every command.

DuckDB 2.0.1 replays nothing of a log whose header it cannot read, and the commits before
an entry that runs past the log's end, without a word; a writable open then deletes the
log. Each kind of damage is made for real on a log of 2,000 spans written by a process
that died without a checkpoint, and run through `tracegrade sql`, `db upgrade`, `score`,
`ingest`, the start of a real `serve` and `configure()`: each refuses with one line, exit
code 2, the log untouched and a copy kept beside it; what the line says to do keeps what
the log holds, and `serve --discard-damaged-log` opens as of the last checkpoint, saying so.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.serve.helpers import start_server
from tests.store.test_damaged import AS_USER, commands, run
from tracegrade.capture import configure
from tracegrade.errors import DamagedLogError
from tracegrade.exit_codes import ExitCode

# Writes 40 commits of 50 spans, the first `argv[3]` of them checkpointed into the file,
# and dies without a checkpoint: the others are only in the log.
_WRITER = """
import os, sys
sys.path.insert(0, sys.argv[2])
from tests.support.span_factory import adk_like_spans
from tracegrade.capture.convert import RowBuilder
from tracegrade.store import SpanWriter
writer = SpanWriter.open(sys.argv[1])
writer.connection.execute("SET checkpoint_threshold = '10GB'")
rows = RowBuilder()
for seed in range(40):
    if seed == int(sys.argv[3]):
        writer.connection.execute("CHECKPOINT")
    writer.write(rows.rows(adk_like_spans(10, seed=seed + 1)))
os._exit(0)
"""


def _write(path: Path, checkpointed: int) -> Path:
    root = str(Path(__file__).parents[2])
    subprocess.run(
        [sys.executable, "-c", _WRITER, str(path), root, str(checkpointed)], check=True, timeout=120
    )
    assert _log(path).stat().st_size > 100_000
    return path


def _log(db: Path) -> Path:
    return db.with_name(db.name + ".wal")


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """All 2,000 spans (and the tables) only in the log."""
    return _write(tmp_path_factory.mktemp("logged") / "logged.duckdb", checkpointed=0)


@pytest.fixture(scope="module")
def half_logged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """1,000 spans checkpointed into the file, 1,000 only in the log."""
    return _write(tmp_path_factory.mktemp("half") / "half.duckdb", checkpointed=20)


def _last_commit_unfinished(log: bytes) -> bytes:
    flush = b"\x64\x00\x64\xff\xff"  # the entry that ends a commit, after its size and checksum
    assert log.endswith(flush)
    return log[: -(16 + len(flush))]


def _middle(log: bytes) -> bytes:
    middle = len(log) // 2
    return log[:middle] + random.Random(2).randbytes(4096) + log[middle + 4096 :]


DAMAGE: dict[str, tuple[Callable[[bytes], bytes], str]] = {
    "zeroed-header": (
        lambda log: bytes(8) + log[8:],
        r"its header is not the one DuckDB writes: it starts 0000 0000 0000 0000",
    ),
    "garbage": (
        lambda log: random.Random(1).randbytes(len(log)),
        r"its header is not the one DuckDB writes: it starts [0-9a-f ]{19}",
    ),
    "cut-mid-entry": (
        lambda log: log[: len(log) // 2],
        r"it ends in the middle of the entry at byte \d+",
    ),
    "garbage-in-the-middle": (
        _middle,
        r"the entry at byte \d+ (fails its checksum|claims \d+ bytes, more than the whole log)",
    ),
    "cut-at-an-entry": (
        _last_commit_unfinished,
        r"its last commit, from byte \d+, has no end \(the log was cut short\)",
    ),
}


def _damaged_copy(source: Path, db: Path, how: str) -> bytes:
    shutil.copy(source, db)
    damaged = DAMAGE[how][0](_log(source).read_bytes())
    _log(db).write_bytes(damaged)
    return damaged


def _refusal(done: subprocess.CompletedProcess[str], db: Path, how: str) -> str:
    assert done.returncode == ExitCode.USAGE_ERROR, done.stderr
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("tracegrade: ")]
    assert len(lines) == 1, done.stderr
    line = lines[0]
    expected = rf"tracegrade: the write-ahead log {re.escape(str(_log(db)))} is damaged \("
    assert re.match(expected + DAMAGE[how][1] + r"\), so ", line), line
    assert f"so {db} was not opened and the log is untouched (a copy is kept as " in line
    assert "`tracegrade serve --discard-damaged-log` does that" in line
    return line


def _kept(db: Path) -> list[Path]:
    return sorted(db.parent.glob(f"{db.name}.wal.damaged-*"))


@pytest.mark.parametrize("command", ["sql", "upgrade", "score", "ingest", "serve"])
@pytest.mark.parametrize("how", list(DAMAGE))
def test_a_damaged_log_is_refused_kept_and_copied(
    logged: Path, tmp_path: Path, how: str, command: str
) -> None:
    db = tmp_path / "damaged.duckdb"
    damaged = _damaged_copy(logged, db, how)
    argv = ["db", "upgrade", "--db", str(db)] if command == "upgrade" else commands(db)[command]

    done = run(*argv, cwd=tmp_path)

    line = _refusal(done, db, how)
    assert "up to date" not in done.stdout
    assert "older tracegrade" not in line  # main's advice, whose upgrade deleted the log
    assert _log(db).read_bytes() == damaged
    kept = _kept(db)
    assert [path.read_bytes() for path in kept] == [damaged]
    assert f"a copy is kept as {kept[0]})" in line
    # Refused again: the same copy, not another one.
    _refusal(run(*argv, cwd=tmp_path), db, how)
    assert _kept(db) == kept


@pytest.mark.parametrize("how", list(DAMAGE))
def test_what_the_line_says_keeps_what_the_log_holds(
    logged: Path, tmp_path: Path, how: str
) -> None:
    db = tmp_path / "damaged.duckdb"
    _damaged_copy(logged, db, how)
    line = _refusal(run(*commands(db)["sql"], cwd=tmp_path), db, how)
    if how == "garbage":
        assert "Nothing in it can be replayed: no whole entry follows its header" in line
        return
    if how == "zeroed-header":
        keep = re.search(
            r"Its (\d+) commits after the header are whole: .*? accepts: `(.*?)`;", line
        )
    else:
        keep = re.search(r"To keep the (\d+) whole commits logged before the damage, `(.*?)`", line)
    assert keep, line
    subprocess.run(["sh", "-c", keep[2]], check=True, cwd=tmp_path)

    done = run(*commands(db)["sql"], "-f", "csv", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    count = int(done.stdout.split()[1])
    if how == "zeroed-header":
        assert count == 2000  # only the header was lost: every span is back
    else:
        assert 0 < count < 2000
        assert count % 50 == 0  # whole writes: every commit before the damage, none half


@pytest.mark.parametrize("how", list(DAMAGE))
def test_serve_told_to_discard_the_log_opens_as_of_the_checkpoint_and_says_so(
    half_logged: Path, tmp_path: Path, how: str
) -> None:
    db = tmp_path / "half.duckdb"
    damaged = _damaged_copy(half_logged, db, how)
    server = start_server(tmp_path, "--discard-damaged-log", db=db)
    try:
        assert server.rows("SELECT count(*) FROM spans") == [[1000]]
    finally:
        assert server.stop() == 0
    kept = _kept(db)
    assert [path.read_bytes() for path in kept] == [damaged]
    warnings = [line for line in server.stderr().splitlines() if "write-ahead log" in line]
    assert len(warnings) == 1, server.stderr()
    assert re.search(
        rf"tracegrade: the write-ahead log {re.escape(str(_log(db)))} is damaged \("
        + DAMAGE[how][1]
        + rf"\): as --discard-damaged-log asks, it is moved aside to {re.escape(str(kept[0]))} "
        + rf"and {re.escape(str(db))} is opened as of its last checkpoint, without the log's "
        + "changes$",
        warnings[0],
    ), warnings[0]


def test_a_damaged_log_in_a_folder_this_user_cannot_write_is_left_as_it_is(
    logged: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "damaged.duckdb"
    damaged = _damaged_copy(logged, db, "cut-mid-entry")
    folder.chmod(0o555)
    try:
        done = run(*commands(db)["sql"], cwd=tmp_path, prefix=AS_USER)
    finally:
        folder.chmod(0o755)
    assert done.returncode == ExitCode.USAGE_ERROR, done.stderr
    assert "was not opened and the log is untouched (no copy could be made beside it)" in (
        done.stderr
    )
    assert _log(db).read_bytes() == damaged
    assert sorted(path.name for path in folder.iterdir()) == [db.name, _log(db).name]


def test_configure_refuses_a_damaged_log(logged: Path, tmp_path: Path) -> None:
    db = tmp_path / "damaged.duckdb"
    damaged = _damaged_copy(logged, db, "zeroed-header")
    with pytest.raises(DamagedLogError, match=r"is damaged \(its header is not the one"):
        configure(db, set_global=False)
    assert _log(db).read_bytes() == damaged
    assert len(_kept(db)) == 1


def test_an_intact_log_replays_whole_and_nothing_is_kept(logged: Path, tmp_path: Path) -> None:
    db = tmp_path / "intact.duckdb"
    shutil.copy(logged, db)
    shutil.copy(_log(logged), _log(db))
    done = run("ingest", "--db", str(db), "/dev/null", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    done = run("sql", "--db", str(db), "SELECT count(*) FROM spans", "-f", "csv", cwd=tmp_path)
    assert done.stdout.split()[1] == "2000"
    assert _kept(db) == []


_HOLDER = """
import sys, time
from tracegrade.store import SpanWriter
writer = SpanWriter.open(sys.argv[1])
print("holding", flush=True)
time.sleep(120)
"""


def test_the_log_of_a_live_writer_is_not_taken_for_damage(tmp_path: Path) -> None:
    """A writer appends to its log as a reader looks: a tail in flight is no damage. The
    file is locked, and the reader is told so (or asks the server), with nothing copied."""
    db = tmp_path / "held.duckdb"
    with subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(db)], stdout=subprocess.PIPE, text=True
    ) as holder:
        try:
            assert holder.stdout is not None
            assert holder.stdout.readline() == "holding\n"
            _log(db).write_bytes(b"\x64\x00\x62\x65\x00\x02\xff\xff" + bytes(20))  # torn
            done = run(*commands(db)["sql"], cwd=tmp_path)
        finally:
            holder.kill()
    assert done.returncode == ExitCode.USAGE_ERROR
    assert f"tracegrade: {db} is locked by process {holder.pid}" in done.stderr
    assert _kept(db) == []
