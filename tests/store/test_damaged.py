"""A database that cannot be used is one clear line at start, through every command.

Each case is made for real (a file cut short, random bytes, a block overwritten, a
folder this user cannot write, a damaged serve sidecar) and run through `tracegrade sql`,
`score`, `ingest` and the start of `serve`: exit code 2 and one line naming the file and
what to do, never a traceback. A damaged write-ahead log: test_damaged_log.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.span_factory import adk_like_spans
from tests.support.tiers import costly
from tracegrade.capture.convert import RowBuilder
from tracegrade.exit_codes import ExitCode
from tracegrade.store import SpanWriter, connect

TRACEGRADE = str(Path(sys.executable).with_name("tracegrade"))
HEADERS = 3 * 4096
BLOCK = 262_144


def run(
    *args: str, cwd: Path, timeout: float = 120, prefix: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TRACEGRADE_DB", "TRACEGRADE_TOKEN")}
    return subprocess.run(
        [*prefix, TRACEGRADE, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
        env=env,
    )


def commands(db: Path) -> dict[str, list[str]]:
    return {
        "sql": ["sql", "--db", str(db), "SELECT count(*) FROM spans"],
        "score": ["score", "--db", str(db)],
        "ingest": ["ingest", "--db", str(db), os.devnull],
        "serve": ["serve", "--db", str(db), "--port", "0", "--grpc-port", "0"],
    }


def _stored_db(path: Path) -> Path:
    writer = SpanWriter.open(path)
    rows = RowBuilder()
    for seed in range(40):
        writer.write(rows.rows(adk_like_spans(20, seed=seed + 1)))
    writer.close()
    assert path.stat().st_size > HEADERS + 3 * BLOCK
    return path


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _stored_db(tmp_path_factory.mktemp("stored") / "good.duckdb")


def _damage(stored: Path, target: Path, how: str) -> None:
    data = bytearray(stored.read_bytes())
    if how == "cut-short":
        data = data[: len(data) // 2]
    elif how == "random-bytes":
        data = bytearray(os.urandom(len(data)))
    elif how == "first-block-overwritten":
        data[HEADERS + 100 : HEADERS + 2000] = os.urandom(1900)
    target.write_bytes(bytes(data))


def _one_clear_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == ExitCode.USAGE_ERROR, done.stderr
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("tracegrade: ")]
    assert len(lines) == 1, done.stderr
    return lines[0]


DAMAGE = {
    "cut-short": "is damaged: it is",
    "random-bytes": "is not a DuckDB database",
    "first-block-overwritten": "is damaged (Corrupt database file: computed checksum",
}


@pytest.mark.parametrize("command", ["sql", "score", "ingest", "serve"])
@pytest.mark.parametrize("how", list(DAMAGE))
def test_a_damaged_file_is_one_line_naming_it(
    stored: Path, tmp_path: Path, how: str, command: str
) -> None:
    db = tmp_path / "damaged.duckdb"
    _damage(stored, db, how)
    line = _one_clear_line(run(*commands(db)[command], cwd=tmp_path))
    assert line.startswith(f"tracegrade: {db} {DAMAGE[how]}")
    assert "restore it from a backup" in line


def test_a_damaged_block_a_query_meets_later_is_one_line(stored: Path, tmp_path: Path) -> None:
    """The open cannot read every block; the query that meets a bad one says what it is."""
    db = tmp_path / "late.duckdb"
    data = bytearray(stored.read_bytes())
    start = HEADERS + BLOCK
    data[start + 100 : start + 2000] = os.urandom(1900)
    db.write_bytes(bytes(data))
    done = run("sql", "--db", str(db), "SELECT * FROM spans", "-f", "csv", cwd=tmp_path)
    line = _one_clear_line(done)
    assert line.startswith("tracegrade: the database is damaged (Corrupt database file")


@pytest.fixture
def read_only_folder(stored: Path, tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "x.duckdb"
    shutil.copy(stored, db)
    folder.chmod(0o555)
    yield db
    folder.chmod(0o755)


# Root may write any folder: a user namespace mapping this user to an unprivileged one
# makes the permissions count, as they would for anyone else. util-linux's unshare.
AS_USER = ("unshare", "--user", "--map-user=1000")


@pytest.mark.parametrize("command", ["score", "ingest", "serve"])
def test_a_writable_file_in_a_read_only_folder_is_one_line(
    read_only_folder: Path, tmp_path: Path, command: str
) -> None:
    assert subprocess.run([*AS_USER, "true"], check=False).returncode == 0, "unshare is needed"
    db = read_only_folder
    line = _one_clear_line(run(*commands(db)[command], cwd=tmp_path, prefix=AS_USER))
    assert line == (
        f"tracegrade: cannot write {db}: DuckDB keeps its write-ahead log (x.duckdb.wal) beside "
        f"the database, and this user cannot write the folder {db.parent}. Make it writable, "
        "or move the database to a folder that is; read-only commands (`tracegrade sql`, "
        "`report`) work as they are"
    )
    done = run(*commands(db)["sql"], "-f", "csv", cwd=tmp_path, prefix=AS_USER)
    assert (done.returncode, done.stdout.split()[1]) == (0, "4000")


_HOLDER = """
import sys, time
from tracegrade.store import SpanWriter
writer = SpanWriter.open(sys.argv[1])
print("holding", flush=True)
time.sleep(120)
"""


@pytest.mark.parametrize(
    ("pid", "problem"),
    [
        ("abc", "pid 'abc' is not a process id"),
        (2**70, "pid 1180591620717411303424 is not"),
        (-1, "pid -1 is not"),
    ],
)
@pytest.mark.parametrize("command", ["sql", "score"])
def test_a_damaged_serve_sidecar_is_one_line(
    stored: Path, tmp_path: Path, pid: object, problem: str, command: str
) -> None:
    """The sidecar is read when the file is locked; main raised TypeError or OverflowError
    from os.kill, and a pid of -1 would have signalled every process it may."""
    db = tmp_path / "held.duckdb"
    shutil.copy(stored, db)
    sidecar = db.with_name(db.name + ".serve.json")
    info = {"pid": pid, "url": "http://127.0.0.1:9", "token_required": False, "db": str(db)}
    sidecar.write_text(json.dumps(info))
    with subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(db)], stdout=subprocess.PIPE, text=True
    ) as holder:
        try:
            assert holder.stdout is not None
            assert holder.stdout.readline() == "holding\n"
            line = _one_clear_line(run(*commands(db)[command], cwd=tmp_path))
        finally:
            holder.kill()
    assert line.startswith(f"tracegrade: {sidecar} is damaged ({problem}")
    assert "delete it" in line


@costly
def test_a_file_a_checkpoint_shrank_is_not_damaged(tmp_path: Path) -> None:
    """A checkpoint truncates free blocks off the file's end while the header still counts
    them: opening it again, read-only or not, is no damage."""
    db = tmp_path / "shrunk.duckdb"
    for _ in range(4):  # each writable open re-creates the views; the file grows and shrinks
        connect(db).close()
        connect(db, read_only=True).close()
