"""Reaching the database: the file itself, or the `tracegrade serve` that holds it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tracegrade.errors import DatabaseLockedError
from tracegrade.remote import RemoteDatabase, find_server
from tracegrade.store import LocalReader, Reader, connect, resolve_path


class RemoteReader:
    """A `Reader` over the server's read-only SQL endpoint."""

    def __init__(self, remote: RemoteDatabase) -> None:
        self.remote = remote

    def query(
        self, sql: str, params: Sequence[Any] = ()
    ) -> tuple[list[str], list[tuple[Any, ...]]]:
        columns, rows = self.remote.query(sql, list(params))
        return columns, [tuple(row) for row in rows]


@contextmanager
def open_reader(db: Path | None) -> Iterator[Reader]:
    """Read-only access: the file if it is free, else through the server that holds it."""
    path = resolve_path(db)
    try:
        connection = connect(path, read_only=True)
    except DatabaseLockedError as locked:
        server = find_server(path)
        if server is None:
            raise locked from None
        yield RemoteReader(RemoteDatabase.for_server(server))
        return
    try:
        yield LocalReader(connection)
    finally:
        connection.close()
