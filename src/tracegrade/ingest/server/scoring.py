"""POST /v1/score: scoring run inside the server, the one process that may write.

The server only routes the request; what scoring means comes from the caller of `serve()`
as a `Scorer` (the CLI passes tracegrade.scoring's), since scoring sits above ingest.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

import duckdb

from tracegrade.errors import TracegradeError

Scorer = Callable[[duckdb.DuckDBPyConnection, dict[str, Any]], dict[str, Any]]
"""Scores what a request selects on the given connection; returns a JSON-ready summary."""


class ScoringFailed(Exception):
    """The request was understood but cannot be scored (HTTP 400, with the reason)."""


class ScoringRequests:
    """One scoring at a time, each on its own cursor of the server's connection."""

    def __init__(self, connection: duckdb.DuckDBPyConnection, scorer: Scorer | None) -> None:
        self._connection = connection
        self._scorer = scorer
        self._lock = threading.Lock()

    @property
    def available(self) -> bool:
        return self._scorer is not None

    def run(self, body: bytes) -> bytes:
        assert self._scorer is not None
        try:
            request = json.loads(body or b"{}")
        except ValueError as exc:
            raise ScoringFailed(f"the body is not JSON: {exc}") from None
        if not isinstance(request, dict):
            raise ScoringFailed('send a JSON object, e.g. {"run_id": "..."}')
        with self._lock:
            cursor = self._connection.cursor()
            try:
                return json.dumps(self._scorer(cursor, request)).encode()
            except TracegradeError as exc:
                raise ScoringFailed(str(exc)) from None
            finally:
                cursor.close()
