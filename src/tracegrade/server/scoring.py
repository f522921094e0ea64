"""POST /v1/score: scoring inside the server, the one process that may write the file.

One scoring at a time, on its own thread and cursor: a second request is told to retry
(429) rather than queued, and the SQL endpoint's threads are never taken. A scoring has a
time limit and can be cancelled (the client went away, or the server is stopping): its
cursor is interrupted and its transaction rolled back, so it leaves nothing behind.

A request names its judges, and may name modules to import for them: the server imports
none (that would run code a client chose), only the modules `serve --judge-import` named
at start are there to be looked up.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import duckdb

from tracegrade.errors import NothingSelected, TracegradeError
from tracegrade.server.cancel import Cancellation
from tracegrade.store.archive_location import layer_archive
from tracegrade.workspace.scoring import answer_wire


class ScoringFailed(Exception):
    """The request was understood but cannot be scored (HTTP 400, with the reason)."""

    nothing_selected = False


class NothingSelectedFailure(ScoringFailed):
    """The request's traffic selection picked no turn: answered as its own reason, so that
    the client says so as locally (errors.NothingSelected), not as an HTTP failure."""

    nothing_selected = True


_NO_IMPORTS = "the server imports no module a request names: start it with --judge-import"


class ScoringRequests:
    def __init__(
        self,
        connection: duckdb.DuckDBPyConnection,
        timeout_s: float,
        judge_imports: tuple[str, ...] = (),
        token: str | None = None,
    ) -> None:
        if judge_imports:
            from tracegrade.scoring.judging.resolve import import_judge_modules

            import_judge_modules(judge_imports)
        self._connection = connection
        self._token = token  # without a run_id, the latest run signed under it is scored
        self.timeout_s = timeout_s
        self._busy = threading.Lock()
        self._running: Cancellation | None = None

    def try_begin(self) -> bool:
        """Claim the one scoring slot; `run` (or `release`) gives it back. Online scoring
        (server/online.py) claims it too, for each of its passes."""
        return self._busy.acquire(blocking=False)

    def release(self) -> None:
        self._busy.release()

    def run(self, body: bytes, cancel: Cancellation) -> bytes:
        """Score what the body asks for (after `try_begin`); the summary as JSON."""
        from tracegrade.scoring.judging.resolve import imports_refused

        self._running = cancel
        try:
            request = _parse(body)
            with self._scoring_cursor(cancel) as cursor, imports_refused(_NO_IMPORTS):
                # The application layer reads the body into a ScoreRequest and scores it.
                summary = answer_wire(
                    cursor, request, stop=lambda: cancel.reason, token=self._token
                )
                return json.dumps(summary).encode()
        finally:
            self._running = None
            self.release()

    def cancel(self, why: str) -> None:
        """Stop the scoring in progress, if any; it fails saying `why`."""
        running = self._running
        if running is not None:
            running.cancel(why)

    @contextmanager
    def _scoring_cursor(self, cancel: Cancellation) -> Iterator[duckdb.DuckDBPyConnection]:
        """A cursor interrupted at the time limit or when cancelled; errors as ScoringFailed."""
        cursor = self._connection.cursor()
        layer_archive(cursor)  # temporary views are per connection, a cursor's too
        cancel.attach(cursor)
        limit = threading.Timer(
            self.timeout_s, cancel.cancel, [f"it ran longer than {self.timeout_s:g} s"]
        )
        limit.start()
        try:
            yield cursor
        except NothingSelected as exc:
            raise NothingSelectedFailure(str(exc)) from None
        except (TracegradeError, duckdb.Error) as exc:
            if cancel.reason or isinstance(exc, duckdb.InterruptException):
                why = cancel.reason or "interrupted"
                raise ScoringFailed(
                    f"the scoring was stopped ({why}); nothing of it was stored "
                    "but the judge answers it paid for"
                ) from None
            raise ScoringFailed(str(exc)) from None
        finally:
            limit.cancel()
            cancel.attach(None)
            cursor.close()


def _parse(body: bytes) -> dict[str, Any]:
    try:
        request = json.loads(body or b"{}")
    except (ValueError, RecursionError) as exc:
        reason = "it is nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        raise ScoringFailed(f"the body is not JSON: {reason}") from None
    if not isinstance(request, dict):
        raise ScoringFailed('send a JSON object, e.g. {"run_id": "..."}')
    return request
