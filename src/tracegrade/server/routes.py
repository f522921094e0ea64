"""The HTTP endpoints: OTLP traces, read-only SQL, scoring, health, Prometheus metrics, the
live pages."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Any, TypeVar

from tracegrade.errors import NothingSelected
from tracegrade.ingest.otlp import Decoded
from tracegrade.server.admission import Overloaded, Refused
from tracegrade.server.cancel import Cancellation
from tracegrade.server.config import (
    HEALTH_PATH,
    METRICS_PATH,
    SCORE_PATH,
    SQL_PATH,
    TRACES_PATH,
)
from tracegrade.server.crosssite import CrossSiteGuard
from tracegrade.server.messages import (
    JSON_TYPE,
    RequestHead,
    Response,
    json_error,
    json_response,
    retry_later,
)
from tracegrade.server.metrics import ServeMetrics
from tracegrade.server.online import OnlineScoring
from tracegrade.server.pages import PageAuth, PageRequest, is_page, page_error, render_page
from tracegrade.server.payload import (
    ENCODINGS,
    UNAVAILABLE,
    Media,
    decode_body,
    error_body,
    media_type,
    success_body,
)
from tracegrade.server.pools import Pools
from tracegrade.server.receiver import Receiver
from tracegrade.server.scoring import ScoringFailed, ScoringRequests
from tracegrade.server.sql import (
    ReadOnlyQueries,
    SqlFailed,
    SqlRefused,
    parse_request,
)

T = TypeVar("T")

# Bodies decoded on the event loop: up to ~20 ms of work (512-1024 spans of a few hundred
# bytes each; gzip shrinks spans about ten times, hence the lower compressed limit).
_INLINE_PLAIN = 256 * 1024
_INLINE_COMPRESSED = 32 * 1024
_METHODS = {TRACES_PATH: "POST", SQL_PATH: "POST", SCORE_PATH: "POST", HEALTH_PATH: "GET",
            METRICS_PATH: "GET"}  # fmt: skip
_NO_TOKEN = "missing or wrong bearer token"
_CHALLENGE = [("www-authenticate", 'Bearer realm="tracegrade"')]


class Endpoints:
    def __init__(
        self,
        receiver: Receiver,
        queries: ReadOnlyQueries,
        scoring: ScoringRequests,
        pools: Pools,
        db: str,
        tls: bool = False,
        online: OnlineScoring | None = None,
    ) -> None:
        self._receiver, self._queries, self._scoring = receiver, queries, scoring
        self._online = online
        self._pools = pools
        self._db = db
        self._config = receiver.config
        self._page_auth = PageAuth(self._config.auth_token, secure=tls)
        self._guard = CrossSiteGuard.for_server(
            self._config.host, self._config.allowed_hosts, self._config.auth_token
        )
        self._metrics = ServeMetrics(receiver, db, self._score_rows)

    def admit(self, head: RequestHead) -> Response | int:
        if (refused := self._guard.refusal(head)) is not None:
            return _refuse(head, refused.status, refused.reason)
        if is_page(head.path):
            return self._admit_page(head)
        method = _METHODS.get(head.path)
        if method is None:
            return json_error(404, f"no endpoint {head.path}: OTLP traces go to POST {TRACES_PATH}")
        if head.method != method and not (method == "GET" and head.method == "HEAD"):
            allow = "GET, HEAD" if method == "GET" else method
            return json_error(405, f"{head.path} takes {allow}", headers=[("allow", allow)])
        if head.path == HEALTH_PATH:
            return 0
        if head.path == TRACES_PATH:
            return self._admit_traces(head)
        if not self._receiver.authorized(head.header("authorization")):
            return json_error(401, _NO_TOKEN, headers=_CHALLENGE)
        if head.path == METRICS_PATH:
            return 0  # a GET with the bearer token, as Prometheus scrapes: no body to take
        if (given := head.header("content-type")).split(";")[0].strip().lower() != JSON_TYPE:
            return json_error(415, f"content type {given!r} is not JSON: send {JSON_TYPE}")
        limit = (
            self._config.score_max_body_bytes
            if head.path == SCORE_PATH
            else self._config.sql_max_body_bytes
        )
        if (head.content_length or 0) > limit:
            return json_error(413, f"body over the {limit} byte limit")
        if (problem := self._receiver.short_of_memory()) is not None:
            return retry_later(problem.status, str(problem), problem.retry_after_s)
        return limit

    def _admit_page(self, head: RequestHead) -> Response | int:
        if head.method not in ("GET", "HEAD"):
            return page_error(405, f"{head.path} takes GET", [("allow", "GET, HEAD")])
        bearer_ok = self._receiver.authorized(head.header("authorization"))
        if (refused := self._page_auth.check(head, bearer_ok)) is not None:
            return refused
        if (problem := self._receiver.short_of_memory()) is not None:
            return retry_later(problem.status, str(problem), problem.retry_after_s)
        return 0

    def _admit_traces(self, head: RequestHead) -> Response | int:
        """Errors here are OTLP's: a google.rpc.Status, in the request's encoding if OTLP's."""
        media = media_type(head.header("content-type"))
        content_type = (media or Media.JSON).value

        def refuse(status: int, message: str, **extra: Any) -> Response:
            return Response(status, error_body(message, media), content_type, **extra)

        if not self._receiver.authorized(head.header("authorization")):
            return refuse(401, _NO_TOKEN, headers=_CHALLENGE)
        if media is None:
            return refuse(415, f"content type {head.header('content-type')!r} is not OTLP: "
                          f"send {Media.PROTOBUF.value} or {Media.JSON.value}")  # fmt: skip
        encoding = head.header("content-encoding")
        if encoding.strip().lower() not in ENCODINGS:
            return refuse(415, f"content encoding {encoding!r} is not supported: use gzip")
        limit = self._config.max_body_bytes
        if (head.content_length or 0) > limit:
            return refuse(413, f"body over the {limit} byte limit")
        overloaded = self._receiver.overloaded()
        return _otlp_overloaded(overloaded, media) if overloaded else limit

    def reserve(self, size: int) -> Response | None:
        if self._receiver.inflight.try_take(size):
            return None
        return retry_later(429, "too many request bodies in flight", self._config.retry_after_s)

    def release(self, size: int) -> None:
        self._receiver.inflight.give_back(size)

    def answered(self, head: RequestHead, status: int) -> None:
        if head.path == TRACES_PATH:
            self._receiver.stats.answered(status)

    async def handle(self, head: RequestHead, body: bytes, gone: asyncio.Event) -> Response:
        if is_page(head.path):
            return await self._page(head, gone)
        if head.path == TRACES_PATH:
            return await self._traces(head, body)
        if head.path == SQL_PATH:
            return await self._sql_query(body, gone)
        if head.path == SCORE_PATH:
            return await self._score(body, gone)
        if head.path == METRICS_PATH:
            return await self._metrics_answer(head)
        return await self._health(head)

    async def _metrics_answer(self, head: RequestHead) -> Response:
        accept = head.header("accept")
        work = self._pools.sql.submit(self._metrics.exposition, accept)
        body, content_type = await asyncio.wrap_future(work)
        return Response(200, body, content_type)

    def _score_rows(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]] | None:
        """The rule scores for /metrics; None when the query failed (timed out, memory),
        so that the scrape still answers the ingest figures."""
        deadline = time.monotonic() + self._queries.timeout_s
        try:
            return self._queries.rows(sql, params, deadline, Cancellation())[1]
        except SqlFailed:
            return None

    async def _traces(self, head: RequestHead, body: bytes) -> Response:
        media = media_type(head.header("content-type")) or Media.JSON
        receiver = self._receiver
        try:
            receiver.begin()
        except Overloaded as exc:
            return _otlp_overloaded(exc, media)
        try:
            decoded, size = await self._decode(body, media, head.header("content-encoding"))
            await asyncio.wrap_future(receiver.store(decoded, size))
        except Refused as exc:
            return Response(exc.status, error_body(str(exc), media), media.value)
        except Overloaded as exc:
            return _otlp_overloaded(exc, media)
        finally:
            receiver.end()
        return Response(200, success_body(decoded, media), media.value)

    async def _decode(self, body: bytes, media: Media, encoding: str) -> tuple[Decoded, int]:
        """Small protobuf bodies on the loop, anything bigger on the decoder thread.

        Measured: handing a 512-span request to a thread costs ~2 ms of CPU more than
        decoding it in place (GIL hand-offs, wake-ups), a sixth of the whole request. A
        large body would stall every other connection for its decode, so it goes to the
        thread: the loop stays responsive at the price of that overhead. JSON decodes
        several times slower per byte, so it always goes to the thread.
        """
        args = (
            body,
            media,
            encoding,
            self._config.max_body_bytes,
            self._config.max_spans_per_request,
        )
        compressed = encoding.strip().lower() not in ("", "identity")
        inline_limit = _INLINE_COMPRESSED if compressed else _INLINE_PLAIN
        if media is Media.PROTOBUF and len(body) <= inline_limit:
            return decode_body(*args)
        return await asyncio.wrap_future(self._pools.decode.submit(decode_body, *args))

    async def _sql_query(self, body: bytes, gone: asyncio.Event) -> Response:
        deadline = time.monotonic() + self._queries.timeout_s  # the whole request, encoding too
        memory, before = self._receiver.memory, self._receiver.memory.resident
        try:
            sql, params, limit = parse_request(body)
            cancel = Cancellation()
            work = self._pools.sql.submit(self._queries.run, sql, params, limit, deadline, cancel)
            result = await _unless_gone(work, gone, cancel.cancel)
        except SqlRefused as exc:
            return json_error(403, str(exc))
        except SqlFailed as exc:
            return json_error(400, str(exc))
        finally:
            self._pools.sql.submit(memory.settle, before)
        return Response(200, result)

    async def _page(self, head: RequestHead, gone: asyncio.Event) -> Response:
        render = PageRequest.of(head).page()
        if render is None:
            return page_error(404, f"no page {head.path}")
        cancel = Cancellation()
        timeout_s = self._queries.timeout_s
        work = self._pools.sql.submit(render_page, self._queries, render, cancel, timeout_s)
        return await _unless_gone(work, gone, cancel.cancel)

    async def _score(self, body: bytes, gone: asyncio.Event) -> Response:
        if not self._scoring.try_begin():
            message = "a scoring is already running: retry when it ends"
            return retry_later(429, message, self._config.retry_after_s)
        cancel = Cancellation()
        work = self._pools.score.submit(self._scoring.run, body, cancel)
        try:
            result = await _unless_gone(work, gone, lambda: cancel.cancel("the client went away"))
        except ScoringFailed as exc:
            if exc.nothing_selected:
                return json_response(422, {"error": str(exc), "reason": NothingSelected.reason})
            return json_error(400, str(exc))
        return Response(200, result)

    async def _health(self, head: RequestHead) -> Response:
        receiver = self._receiver
        document: dict[str, Any] = {
            "status": "ok",
            "pid": os.getpid(),  # how `find_server` tells this server from a stale sidecar's
            "uptime_s": round(receiver.stats.uptime_s, 3),
            "queued_spans": receiver.commit.queued_spans,
            "token_required": receiver.token_required,
        }
        # Where the file lives is for those holding the token, not for anyone who asks.
        trusted = not receiver.token_required or receiver.authorized(head.header("authorization"))
        if receiver.token_required and trusted:
            document["db"] = self._db
        if self._online is not None and trusted:  # per rule: turns scored, lag, budget
            document["online"] = self._online.status()
        problem = receiver.unhealthy()
        if problem is not None:
            return json_response(503, {**document, "status": "unavailable", "reason": problem})
        try:
            count = self._pools.health.submit(self._queries.count_spans)
            document["spans"] = await asyncio.wrap_future(count)
        except SqlFailed as exc:
            return json_response(503, {**document, "status": "unavailable", "reason": str(exc)})
        return json_response(200, document)


async def _unless_gone(work: Future[T], gone: asyncio.Event, stop: Callable[[], None]) -> T:
    """The work's result; if the client disconnects first, `stop` it (and still await it)."""
    waiting = asyncio.wrap_future(work)
    watcher: asyncio.Future[Any] = asyncio.ensure_future(gone.wait())
    try:
        await asyncio.wait((waiting, watcher), return_when=asyncio.FIRST_COMPLETED)
    finally:
        watcher.cancel()
    if not waiting.done():
        stop()
    return await waiting


def _refuse(head: RequestHead, status: int, reason: str) -> Response:
    """A refusal in the path's own form: an HTML page, an OTLP status, or a JSON error."""
    if is_page(head.path):
        return page_error(status, reason)
    if head.path == TRACES_PATH:
        media = media_type(head.header("content-type"))
        return Response(status, error_body(reason, media), (media or Media.JSON).value)
    return json_error(status, reason)


def _otlp_overloaded(exc: Overloaded, media: Media) -> Response:
    return retry_later(
        exc.status,
        str(exc),
        exc.retry_after_s,
        error_body(str(exc), media, code=UNAVAILABLE),
        media.value,
    )
