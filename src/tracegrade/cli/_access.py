"""Reaching the database: the file itself, or the `tracegrade serve` that holds it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from tracegrade.errors import DatabaseLockedError, TracegradeError
from tracegrade.remote import RemoteDatabase, find_server
from tracegrade.store import LocalReader, Reader, connect, resolve_path
from tracegrade.store.connection import require_database
from tracegrade.store.readonly import lock_down
from tracegrade.store.shards import layer_shards


class RemoteReader:
    """A `Reader` over the server's read-only SQL endpoint."""

    def __init__(self, remote: RemoteDatabase) -> None:
        self.remote = remote

    def query(
        self, sql: str, params: Sequence[Any] = ()
    ) -> tuple[list[str], list[tuple[Any, ...]]]:
        columns, rows = self.remote.query(sql, list(params))
        return columns, [tuple(row) for row in rows]


class ScoringTarget(Protocol):
    def score(self, request: dict[str, Any]) -> dict[str, Any]: ...


@contextmanager
def open_reader(
    db: Path | None, server: str | None = None, shards: Sequence[Path] = ()
) -> Iterator[Reader]:
    """Read-only access: the file if it is free, else through the server that holds it.
    `shards`: other shards' files, read with it as one (store.shards)."""
    if server:
        _refuse_server_shards(shards)
        yield RemoteReader(RemoteDatabase(server))
        return
    path = resolve_path(db)
    try:
        connection = connect(path, read_only=True)
    except DatabaseLockedError as locked:
        _refuse_server_shards(shards, locked)
        yield RemoteReader(_server_holding(path, locked))
        return
    try:
        layer_shards(connection, shards)
        lock_down(connection)  # users' SQL runs here: no file access from it
        yield LocalReader(connection)
    finally:
        connection.close()


@contextmanager
def scoring_target(
    db: Path | None,
    server: str | None,
    metric_dirs: Iterable[Path] = (),
    shards: Sequence[Path] = (),
) -> Iterator[ScoringTarget]:
    """Where scoring runs: in this process on the file, or in the server that holds it.
    `shards`: other shards' files whose spans are scored with the file's (store.shards);
    the scores are stored in the file."""
    if server:
        _refuse_server_shards(shards)
        yield _remote_scoring(RemoteDatabase(server), metric_dirs)
        return
    path = resolve_path(db)
    require_database(path)  # scoring needs stored runs: a mistyped --db is not a new file
    try:
        connection = connect(path)
    except DatabaseLockedError as locked:
        _refuse_server_shards(shards, locked)
        yield _remote_scoring(_server_holding(path, locked), metric_dirs)
        return
    try:
        layer_shards(connection, shards)
        lock_down(connection)  # a `where` and --metrics files run here: no file access from them
        yield _LocalScoring(connection, list(metric_dirs))
    finally:
        connection.close()


class _LocalScoring:
    def __init__(self, connection: Any, metric_dirs: list[Path]) -> None:
        self._connection = connection
        self._metric_dirs = metric_dirs

    def score(self, request: dict[str, Any]) -> dict[str, Any]:
        from tracegrade.scoring.stored import score_request
        from tracegrade.store.run_identity import run_token

        return score_request(self._connection, request, self._metric_dirs, token=run_token())


def _remote_scoring(remote: RemoteDatabase, metric_dirs: Iterable[Path]) -> RemoteDatabase:
    if list(metric_dirs):
        raise TracegradeError(
            "--metrics: a server scores with its own metrics; run the custom ones on a copy "
            "of the database, or after stopping the server"
        )
    return remote


def _refuse_server_shards(
    shards: Sequence[Path], locked: DatabaseLockedError | None = None
) -> None:
    """A server reads its own database only: shards are read together from their files."""
    if not shards:
        return
    held = f"{locked}; " if locked else "--server: "
    raise TracegradeError(
        f"{held}several --db shards are read from their files, which no server may hold: "
        "score copies of the served files, or stop their servers"
    )


def _server_holding(path: Path, locked: DatabaseLockedError) -> RemoteDatabase:
    server = find_server(path)
    if server is None:
        raise locked from None
    return RemoteDatabase.for_server(server)
