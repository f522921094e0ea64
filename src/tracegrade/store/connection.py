"""Opening the DuckDB file: path resolution, migrations, views, and diagnostics.

A file that cannot be used (damaged, not DuckDB, in a folder this user cannot write,
locked) is one `DatabaseError` naming it and what to do (see `damage`); so is a damaged
write-ahead log, found before DuckDB replays (or deletes) it (see `log_guard`).
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from pathlib import Path

import duckdb

from tracegrade._resources import sql_files
from tracegrade.errors import DatabaseError, DatabaseLockedError, closest
from tracegrade.store import damage, view_stamp
from tracegrade.store.archive_location import layer_archive
from tracegrade.store.log_guard import guard_log
from tracegrade.store.migrations import migrate, pending
from tracegrade.store.view_functions import register_view_functions

# The file starts with three 4 KiB headers; the blocks it describes follow them.
_HEADERS_BYTES = 3 * 4096

DEFAULT_DB = "tracegrade.duckdb"
DB_ENV = "TRACEGRADE_DB"

_LOCK_HOLDER = re.compile(r"Conflicting lock is held in (?P<exe>.*?) \(PID (?P<pid>\d+)\)")


def resolve_path(path: str | os.PathLike[str] | None = None) -> Path:
    """The database to use: the argument, else `$TRACEGRADE_DB`, else ./tracegrade.duckdb."""
    chosen = path or os.environ.get(DB_ENV) or DEFAULT_DB
    return Path(chosen).expanduser()


def require_database(db: Path) -> None:
    """Commands that read a database refuse one that is not there: a mistyped --db would
    otherwise become a new, empty file."""
    if db.exists():
        return
    # By stem: every candidate shares the suffix, which would make any two names look alike.
    stems = [p.stem for p in db.parent.glob("*.duckdb")] if db.parent.is_dir() else []
    near = closest(db.stem, stems)
    hint = (
        f"did you mean {db.with_name(near + '.duckdb')}?"
        if near
        else "nothing has been recorded there yet (`tracegrade run`, `ingest` or `serve` "
        "creates it)"
    )
    raise DatabaseError(f"no database at {db}: {hint}")


def connect(
    path: str | os.PathLike[str] | None = None,
    *,
    read_only: bool = False,
    discard_damaged_log: bool = False,
    view_functions: bool = True,
) -> duckdb.DuckDBPyConnection:
    """Open the database, migrated and with every view of `queries/views/` in place.

    A writable open migrates the file and (re)creates the views in it, so any DuckDB
    client sees them, unless this tracegrade made them and no migration ran. A read-only
    open never changes the file: it refuses a file that lacks migrations and uses the
    file's views when this tracegrade made them, else defines them as temporary ones,
    current for this tracegrade (see `view_stamp`). The view functions (the tool-call
    check) are registered, unless `view_functions` is false: a read command's `LocalReader`
    registers them when a query needs them (see `store.view_functions`).
    Where the database has an archive, `spans` reads the hot table and the archive's
    Parquet files as one, for this connection (see `archive_location`). A damaged log is
    refused, or with `discard_damaged_log` moved aside (see `log_guard`).
    """
    db = resolve_path(path)
    if read_only:
        require_database(db)
    guard_log(db, discard=discard_damaged_log)  # before DuckDB replays (and deletes) it
    connection = _open(db, read_only)
    try:
        _require_whole(connection, db)
        migrated: list[str] = []
        if read_only:
            _require_migrated(connection, db)
        else:
            migrated = _migrate(connection)
        apply_views(connection, temporary=read_only, reuse=not migrated)
        if view_functions:
            register_view_functions(connection)
        layer_archive(connection)
    except duckdb.Error as exc:
        connection.close()
        raise damage.explain(exc, db) from None
    except BaseException:
        connection.close()
        raise
    return connection


def apply_views(
    connection: duckdb.DuckDBPyConnection, *, temporary: bool = False, reuse: bool = True
) -> None:
    """(Re)create the SQL macros and views, in file order (macros first: views use them),
    unless with `reuse` the file's own are this tracegrade's (see view_stamp): binding them
    all again is most of a writable open (~0.8 s), paid by every `run`, `score` and writer.
    A migration that just ran may have changed the tables under them: then no `reuse`."""
    macros, views = sql_files("macros"), sql_files("views")
    if reuse and view_stamp.is_current(connection, macros, views):
        return
    _apply(macros, connection, temporary)
    _apply(views, connection, temporary)
    if not temporary:
        view_stamp.stamp(connection, macros, views)


def _migrate(connection: duckdb.DuckDBPyConnection) -> list[str]:
    """The migrations that ran; none (and no macros made) where the file has them all."""
    if not pending(connection):
        return []
    _apply(sql_files("macros"), connection, False)  # a migration may use one (004 fills attrs)
    return migrate(connection)


def _apply(paths: list[Path], connection: duckdb.DuckDBPyConnection, temporary: bool) -> None:
    for path in paths:
        sql = path.read_text()
        if temporary:
            sql = sql.replace("CREATE OR REPLACE VIEW", "CREATE OR REPLACE TEMP VIEW")
            sql = sql.replace("CREATE OR REPLACE MACRO", "CREATE OR REPLACE TEMP MACRO")
        connection.execute(sql)


def _open(db: Path, read_only: bool) -> duckdb.DuckDBPyConnection:
    if db.is_file() and db.stat().st_size == 0:
        # DuckDB calls it invalid, which reads as damage; nothing was ever written to it.
        raise DatabaseError(
            f"{db} is an empty file (0 bytes), not a DuckDB database: point --db or "
            f"${{{DB_ENV}}} at the right file, or delete it to start a new database there"
        )
    if not read_only:
        db.parent.mkdir(parents=True, exist_ok=True)
        if (unwritable := damage.unwritable_folder(db)) is not None:
            raise unwritable
    try:
        return duckdb.connect(str(db), read_only=read_only)
    except duckdb.Error as exc:
        holder = _LOCK_HOLDER.search(str(exc))
        if holder:
            raise DatabaseLockedError(_locked_message(db, int(holder["pid"]))) from None
        raise damage.explain(exc, db) from None


def _require_whole(connection: duckdb.DuckDBPyConnection, db: Path) -> None:
    """A file shorter than its header says was cut short; DuckDB notices only on reading."""
    # Used blocks, not total: a checkpoint truncates free blocks off the file's end while
    # the header still counts them (measured: 4 blocks counted, 3 used, the file 3 long).
    row = connection.execute(
        "SELECT block_size, used_blocks FROM pragma_database_size() "
        "WHERE database_name = current_database()"
    ).fetchone()
    if row is None or not db.exists():
        return
    expected, actual = _HEADERS_BYTES + row[0] * row[1], db.stat().st_size
    if actual < expected:
        raise damage.truncated(db, actual, expected)


def _locked_message(db: Path, pid: int) -> str:
    command = _command_line(pid)
    hint = (
        "it is being served: query it through that server, or stop it first"
        if "serve" in command.split()  # the `serve` command, not a path that holds the word
        else "wait for it to finish, or stop it"
    )
    return f"{db} is locked by process {pid} ({command}): {hint}"


def _command_line(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "command unknown"
    return raw.replace(b"\0", b" ").decode(errors="replace").strip() or "command unknown"


def _require_migrated(connection: duckdb.DuckDBPyConnection, db: Path) -> None:
    missing = pending(connection)
    if missing:
        raise DatabaseError(
            f"{db} was written by an older tracegrade (missing {', '.join(missing)}): "
            "run `tracegrade db upgrade` to bring it up to date"
        )


@contextlib.contextmanager
def transaction(connection: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """What runs inside is committed whole, or rolled back whole when anything (Ctrl-C
    included) interrupts it."""
    connection.execute("BEGIN TRANSACTION")
    try:
        yield
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")
