"""The live pages: `GET /` (runs and traffic scorings), `/runs/<run>`, `/runs/<run>/cases/
<eval set>/<case>`, `/turns/<turn>`, `/traffic/<scoring>`, `/traces` (turns as they
arrive, filtered) and `/monitor` (traffic metrics over time), rendered per request by the
same renderer as `--html` files (tracegrade.report.pages), read through the same guard and
read-only transactions as POST /v1/sql.

A browser cannot send a bearer token on a navigation, so with a token set a page also
accepts a cookie: opening any page once with `?token=<the token>` sets it (HttpOnly,
SameSite=Strict, and Secure when serve has TLS) and redirects to the same page without the
token in its address, as Jupyter's token login does. The cookie holds an HMAC of the token,
not the token: it opens the pages only, never POST /v1/traces, /v1/sql or /v1/score, so a
page can never be made to write (SameSite=Strict keeps other sites' requests from carrying
it either way).
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http.cookies import CookieError, SimpleCookie
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode

from markupsafe import escape

from tracegrade.errors import TracegradeError
from tracegrade.report import pages
from tracegrade.report.queries import ReportError
from tracegrade.server.cancel import Cancellation
from tracegrade.server.messages import RequestHead, Response
from tracegrade.server.sql import ReadOnlyQueries, SqlFailed
from tracegrade.store.reader import Reader

HTML = "text/html; charset=utf-8"
# On top of the CSP inside each page (which forbids every fetch and runs only the page's own
# scripts): no framing by other sites, which a <meta> CSP cannot say.
_HEADERS = [
    ("content-security-policy", "frame-ancestors 'none'"),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "no-referrer"),
    ("cache-control", "no-store"),
]
_PREFIXES = ("/runs/", "/turns/", "/traffic/")
_PAGES = ("/", "/traces", "/monitor")

Render = Callable[[Reader], str]


class BadPageRequest(TracegradeError):
    """A page's address holds something it cannot use (HTTP 400)."""


def is_page(path: str) -> bool:
    return path in _PAGES or path.startswith(_PREFIXES)


@dataclass(frozen=True)
class PageRequest:
    parts: list[str]
    """The path's segments, each percent-decoded on its own."""
    query: dict[str, str]

    @classmethod
    def of(cls, head: RequestHead) -> PageRequest:
        parts = [unquote(p) for p in (head.raw_path or head.path).strip("/").split("/") if p]
        query = {k: v[-1] for k, v in parse_qs(head.query, keep_blank_values=True).items()}
        return cls(parts, query)

    def offset(self) -> int:
        text = self.query.get("offset", "0")
        if not text.isdigit():
            raise BadPageRequest(f"offset must be a whole number, not {text!r}")
        return int(text)

    def page(self) -> Render | None:
        """What renders this page, or None when no page has this address."""
        match self.parts:
            case []:
                return pages.runs_live
            case ["runs", run_id]:
                baseline = self.query.get("baseline") or None
                return lambda reader: pages.run_live(reader, run_id, baseline, self.offset())
            case ["runs", run_id, "cases", eval_set_id, case_id]:
                return lambda reader: pages.case_live(reader, run_id, eval_set_id, case_id)
            case ["turns", turn_id]:
                back = self.query.get("back")
                return lambda reader: pages.turn_live(reader, turn_id, back)
            case ["traces"]:
                return lambda reader: pages.traces_live(reader, self.query)
            case ["monitor"]:
                return lambda reader: pages.monitor_live(reader, self.query)
            case ["traffic", scoring_id]:
                return lambda reader: pages.traffic_live(reader, scoring_id, self.offset())
        return None


class PageAuth:
    """Who may see the pages: everyone without a token; else a bearer token or the cookie."""

    def __init__(self, token: str | None, secure: bool = False) -> None:
        self._token = token.encode() if token else None
        # Over HTTPS the browser must never send the cookie on a plain-HTTP request.
        self._attributes = "Path=/; HttpOnly; SameSite=Strict" + ("; Secure" if secure else "")
        self._cookie = (
            hmac.new(self._token, b"tracegrade live pages", hashlib.sha256).hexdigest()
            if self._token
            else ""
        )
        # A browser keeps cookies per host, not per port: named after the token, the
        # cookies of two servers on one host (two shards, a staging and a main) coexist.
        self.cookie_name = (
            f"tracegrade_pages_{hashlib.sha256(self._cookie.encode()).hexdigest()[:12]}"
        )

    def check(self, head: RequestHead, bearer_ok: bool) -> Response | None:
        """None to let the request in; else the redirect that signs in, or a 401."""
        if self._token is None or bearer_ok or self._has_cookie(head):
            return None
        request = PageRequest.of(head)
        given = request.query.get("token")
        if given is not None and hmac.compare_digest(given.encode(), self._token):
            return self._sign_in(head, request)
        return page_error(401, "this server wants its token: open this page once with "
                          "?token=<TRACEGRADE_TOKEN> added to its address")  # fmt: skip

    def _has_cookie(self, head: RequestHead) -> bool:
        try:
            jar = SimpleCookie(head.header("cookie"))
        except CookieError:
            return False
        morsel = jar.get(self.cookie_name)
        return morsel is not None and hmac.compare_digest(morsel.value, self._cookie)

    def _sign_in(self, head: RequestHead, request: PageRequest) -> Response:
        rest = {k: v for k, v in request.query.items() if k != "token"}
        location = (head.raw_path or head.path) + (f"?{urlencode(rest)}" if rest else "")
        cookie = f"{self.cookie_name}={self._cookie}; {self._attributes}"
        headers = [("location", location), ("set-cookie", cookie), *_HEADERS]
        return Response(303, b"", HTML, headers)


def render_page(
    queries: ReadOnlyQueries, render: Render, cancel: Cancellation, timeout_s: float
) -> Response:
    """The page as a response, its queries all within one deadline (run on a SQL thread)."""
    reader = _GuardedReader(queries, time.monotonic() + timeout_s, cancel)
    try:
        return Response(200, render(reader).encode(), HTML, list(_HEADERS))
    except ReportError as exc:  # an id with nothing behind it
        return page_error(404, str(exc))
    except SqlFailed as exc:  # over a limit, stopped, or the database failed
        return page_error(503, str(exc))
    except TracegradeError as exc:
        return page_error(400, str(exc))


def page_error(status: int, message: str, headers: Sequence[tuple[str, str]] = ()) -> Response:
    """A small HTML page saying what is wrong; no script, no style from outside."""
    body = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'">'
        f"<title>{status}: tracegrade</title></head><body><h1>{status}</h1>"
        f'<p>{escape(message)}</p><p><a href="/">all runs</a></p></body></html>'
    )
    return Response(status, body.encode(), HTML, [*_HEADERS, *headers])


class _GuardedReader:
    """A `Reader` whose every query passes /v1/sql's guard, on the page's deadline."""

    def __init__(self, queries: ReadOnlyQueries, deadline: float, cancel: Cancellation) -> None:
        self._queries, self._deadline, self._cancel = queries, deadline, cancel

    def query(
        self, sql: str, params: Sequence[Any] = ()
    ) -> tuple[list[str], list[tuple[Any, ...]]]:
        return self._queries.rows(sql, params, self._deadline, self._cancel)
