"""One handle on the database: the DuckDB file, or the `tracegrade serve` that holds it.

Every front end reaches the store through a `Store`; which of the two it is gets decided
here, per use: a file that is free is opened (read-only to read), a file a server holds is
reached through that server (found by its sidecar), and `server=` names one outright (a
serve in a container). Imported by read commands: it loads no scoring or report code.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from tracegrade.errors import DatabaseLockedError, TracegradeError
from tracegrade.remote import RemoteDatabase, find_server
from tracegrade.store import LocalReader, Reader, connect, resolve_path
from tracegrade.store.connection import require_database
from tracegrade.store.readonly import lock_down
from tracegrade.store.shards import layer_shards

if TYPE_CHECKING:
    import duckdb

    from tracegrade.capture import Capture
    from tracegrade.workspace.requests import ScoreRequest
    from tracegrade.workspace.results import JudgesResolved, ScoreResult


class ScoringTarget(Protocol):
    """Where a scoring runs: this process on the file, or the server holding it."""

    def score(self, request: ScoreRequest) -> ScoreResult: ...

    def check_judges(self, request: ScoreRequest) -> JudgesResolved: ...


class Store:
    """The database a front end works on. `db`: the file (default: $TRACEGRADE_DB, else
    ./tracegrade.duckdb); `server`: the URL of the serve holding it, when it cannot be
    found from the file; `shards`: other shards' files, read with it as one."""

    def __init__(
        self,
        db: str | os.PathLike[str] | None = None,
        server: str | None = None,
        shards: Sequence[str | os.PathLike[str]] = (),
    ) -> None:
        self.db = Path(db) if db is not None else None
        self.server = server
        self.shards = tuple(Path(s) for s in shards)
        self._capture: Capture | None = None

    def __repr__(self) -> str:
        return f"Store({self.server or str(self.path)!r})"

    @property
    def path(self) -> Path:
        return resolve_path(self.db)

    @contextmanager
    def reader(self) -> Iterator[Reader]:
        """Read-only access: the file if it is free, else through the server holding it."""
        if self._capture is not None:
            with _cursor(self._capture) as cursor:
                yield LocalReader(cursor)
            return
        if self.server:
            _refuse_server_shards(self.shards)
            yield RemoteReader(RemoteDatabase(self.server))
            return
        try:
            # Its reader registers the tool-call check when a query needs it.
            connection = connect(self.path, read_only=True, view_functions=False)
        except DatabaseLockedError as locked:
            _refuse_server_shards(self.shards, locked)
            yield RemoteReader(_server_holding(self.path, locked))
            return
        try:
            layer_shards(connection, self.shards)
            lock_down(connection)  # users' SQL runs here: no file access from it
            yield LocalReader(connection)
        finally:
            connection.close()

    @contextmanager
    def scoring(self, metric_dirs: Iterable[Path] = ()) -> Iterator[ScoringTarget]:
        """Where scoring runs: in this process on the file, or in the server that holds it;
        the scores are stored in the file (the first, with shards)."""
        if self._capture is not None:
            with _cursor(self._capture) as cursor:
                yield _LocalScoring(cursor)
            return
        if self.server:
            _refuse_server_shards(self.shards)
            yield _remote_scoring(RemoteDatabase(self.server), metric_dirs)
            return
        require_database(self.path)  # scoring needs stored runs: a mistyped --db is not a new file
        try:
            connection = connect(self.path)
        except DatabaseLockedError as locked:
            _refuse_server_shards(self.shards, locked)
            yield _remote_scoring(_server_holding(self.path, locked), metric_dirs)
            return
        try:
            layer_shards(connection, self.shards)
            lock_down(connection)  # a `where` and --metrics files run here: no file access
            yield _LocalScoring(connection)
        finally:
            connection.close()

    def scoring_server(self) -> RemoteDatabase:
        """The serve that holds the file (named, or found running on this machine): where
        spans sent over OTLP end up, and are scored."""
        if self.server:
            return RemoteDatabase(self.server)
        found = find_server(self.path)
        if found is None:
            raise TracegradeError(
                "--otlp-endpoint: give --server, the URL of the tracegrade serve the spans end "
                "up in (e.g. http://127.0.0.1:4319 with docker compose), so it can score them"
            )
        return RemoteDatabase.for_server(found)

    def keep_capture(self, service_name: str | None = None) -> Capture:
        """Capture this process's spans into the file until `close()`; eval runs then write
        through it, and scoring and reading use its connection (a pytest session: OTel lets
        a process install one tracer provider, and the writer keeps the file open)."""
        if self._capture is None:
            from tracegrade.capture import configure

            self._capture = configure(self.db, service_name=service_name)
        return self._capture

    @property
    def kept_capture(self) -> Capture | None:
        return self._capture

    def close(self) -> None:
        if self._capture is not None:
            self._capture.shutdown()
            self._capture = None


class RemoteReader:
    """A `Reader` over the server's read-only SQL endpoint."""

    def __init__(self, remote: RemoteDatabase) -> None:
        self.remote = remote

    def query(
        self, sql: str, params: Sequence[Any] = ()
    ) -> tuple[list[str], list[tuple[Any, ...]]]:
        columns, rows = self.remote.query(sql, list(params))
        return columns, [tuple(row) for row in rows]


class _LocalScoring:
    def __init__(self, connection: duckdb.DuckDBPyConnection) -> None:
        self._connection = connection

    def score(self, request: ScoreRequest) -> ScoreResult:
        from tracegrade.store.run_identity import run_token
        from tracegrade.workspace.scoring import score_stored

        return score_stored(self._connection, request, token=run_token())

    def check_judges(self, request: ScoreRequest) -> JudgesResolved:
        from tracegrade.workspace.scoring import resolve_judges

        return resolve_judges(request)


class _RemoteScoring:
    """Scoring sent to the serve holding the file (POST /v1/score)."""

    def __init__(self, remote: RemoteDatabase) -> None:
        self.remote = remote

    def score(self, request: ScoreRequest) -> ScoreResult:
        from tracegrade.workspace.results import ScoreResult

        return ScoreResult.model_validate(self.remote.score(request.to_wire()))

    def check_judges(self, request: ScoreRequest) -> JudgesResolved:
        from tracegrade.workspace.results import JudgesResolved

        wire = request.model_copy(update={"check_judges": True}).to_wire()
        return JudgesResolved.model_validate(self.remote.score(wire))


@contextmanager
def _cursor(capture: Capture) -> Iterator[duckdb.DuckDBPyConnection]:
    from tracegrade.capture import DuckDBSpanExporter

    exporter = capture.exporter
    assert isinstance(exporter, DuckDBSpanExporter)  # keep_capture() writes to DuckDB
    # A cursor is a connection of its own: the exporter's thread keeps the writer's.
    cursor = exporter.writer.connection.cursor()
    try:
        yield cursor
    finally:
        cursor.close()


def _remote_scoring(remote: RemoteDatabase, metric_dirs: Iterable[Path]) -> _RemoteScoring:
    if list(metric_dirs):
        raise TracegradeError(
            "--metrics: a server scores with its own metrics; run the custom ones on a copy "
            "of the database, or after stopping the server"
        )
    return _RemoteScoring(remote)


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
