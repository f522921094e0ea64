"""The traces page: traffic turns as they arrive, before any scoring, newest first, narrowed
by the filters in its address; each row links to its turn's page.

Two steps keep it fast on a large store: the newest matching traces are picked from the
spans table (root spans only when every filter is about the root: time, service, latency;
else the traces' spans inside the time window), then the `turns` view is read for those
traces alone. A page lists the turns of up to `TracesFilter.limit` traces; "older" continues
before the last trace shown.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, fields, replace
from typing import Any
from urllib.parse import urlencode

from tracegrade.errors import TracegradeError
from tracegrade.report.pages.sql import rows
from tracegrade.report.pages.turn import clip
from tracegrade.report.queries import Row, iso_utc
from tracegrade.report.values import as_float, as_int, as_list, as_str
from tracegrade.store.reader import Reader

PAGE_TRACES = 100
FOLLOW_S = 3
# A text filter is checked exactly on the turns' user and final messages after a looser
# check on the traces' model calls; this many more traces are read so a page stays full.
_TEXT_OVERSCAN = 5
_TEXT_CUT = 140
_UNITS = {"m": 60, "h": 3600, "d": 86400}
_WINDOW = re.compile(r"(\d+)([mhd])")
WINDOWS = ("", "1h", "24h", "7d", "30d")


class BadFilter(TracegradeError):
    """A filter in the traces page's address cannot be read (HTTP 400)."""


@dataclass(frozen=True)
class TracesFilter:
    since: str = ""
    """A window back from now, e.g. 24h, 7d or 30m; empty: all time."""
    agent: str = ""
    service: str = ""
    errors: bool = False
    tool: str = ""
    min_latency_ms: float | None = None
    min_tokens: int | None = None
    text: str = ""
    before_ns: int | None = None
    """Only traces whose root started before this (the "older" link's cursor)."""
    follow: bool = False
    """Reload the newest page every FOLLOW_S seconds, so it fills as turns arrive."""

    @classmethod
    def of(cls, query: dict[str, str]) -> TracesFilter:
        """The filter an address's query holds; an unreadable value is a BadFilter."""
        since = query.get("since", "").strip()
        if since and not _WINDOW.fullmatch(since):
            raise BadFilter(f"since must be a window such as 30m, 24h or 7d, not {since!r}")
        return cls(
            since=since,
            agent=query.get("agent", "").strip(),
            service=query.get("service", "").strip(),
            errors=query.get("errors", "") in ("1", "on", "true"),
            tool=query.get("tool", "").strip(),
            min_latency_ms=_number(query, "min_latency_ms", float),
            min_tokens=_number(query, "min_tokens", int),
            text=query.get("text", "").strip(),
            before_ns=_number(query, "before", int),
            follow=query.get("follow", "") in ("1", "on", "true"),
        )

    def since_ns(self, now_ns: int) -> int | None:
        found = _WINDOW.fullmatch(self.since)
        if not found:
            return None
        return now_ns - int(found[1]) * _UNITS[found[2]] * 10**9

    def spans_needed(self) -> bool:
        """Whether a filter reads the traces' other spans, not only their roots."""
        return bool(self.agent or self.errors or self.tool or self.text) or (
            self.min_tokens is not None
        )

    def query(self, **changes: Any) -> str:
        """This filter (changed as given) as an address's query string."""
        changed = replace(self, **changes)
        pairs = {}
        for f in fields(changed):
            value = getattr(changed, f.name)
            if value not in ("", None, False):
                pairs["before" if f.name == "before_ns" else f.name] = (
                    "1" if value is True else str(value)
                )
        return urlencode(pairs)


def _number(query: dict[str, str], name: str, kind: type[float] | type[int]) -> Any:
    text = query.get(name, "").strip()
    if not text:
        return None
    try:
        value = kind(text)
    except ValueError:
        raise BadFilter(f"{name} must be a number, not {text!r}") from None
    if value < 0:
        raise BadFilter(f"{name} must be 0 or more, not {text!r}")
    return value


@dataclass(frozen=True)
class TraceRow:
    turn_id: str
    started_at: str | None
    root_agent: str | None
    models: list[str]
    service: str | None
    latency_ms: float | None
    total_tokens: int | None
    llm_calls: int | None
    tool_calls: int | None
    tool_errors: int | None
    is_error: bool
    error_type: str | None
    user_text: str | None
    final_text: str | None


@dataclass(frozen=True)
class TracesPage:
    filter: TracesFilter
    rows: list[TraceRow]
    older: str | None
    """The query string of the next, older page; None when this page reached the end."""
    here: str
    """This page's address, for the turns' links back."""
    refresh_s: int | None = None
    """Seconds before the page reloads itself (following the newest turns), or None."""
    windows: tuple[str, ...] = WINDOWS


def build_traces_page(
    reader: Reader, wanted: TracesFilter, now_ns: int | None = None, limit: int = PAGE_TRACES
) -> TracesPage:
    now = time.time_ns() if now_ns is None else now_ns
    scan = limit * _TEXT_OVERSCAN if wanted.text else limit
    traces = _newest_traces(reader, wanted, now, scan)
    text = wanted.text.lower() or None
    found = []
    if traces:
        earliest = min(int(t["start_ns"]) for t in traces)
        found = rows(reader, "traces_turns", [t["trace_id"] for t in traces], earliest, text)
    last = traces[-1]["start_ns"] if len(traces) >= scan else None
    older = wanted.query(before_ns=last, follow=False) if last is not None else None
    here = "/traces" + (f"?{q}" if (q := wanted.query(follow=False)) else "")
    following = wanted.follow and wanted.before_ns is None
    return TracesPage(
        wanted, [_row(r) for r in found], older, here, FOLLOW_S if following else None
    )


def _newest_traces(reader: Reader, wanted: TracesFilter, now_ns: int, limit: int) -> list[Row]:
    common = [
        wanted.since_ns(now_ns),
        wanted.before_ns,
        wanted.service or None,
        wanted.min_latency_ms,
    ]
    if not wanted.spans_needed():
        return rows(reader, "traces_newest", *common, limit)
    return rows(
        reader,
        "traces_filtered",
        *common,
        limit,
        wanted.agent or None,
        wanted.errors,
        wanted.tool or None,
        wanted.min_tokens,
        wanted.text.lower() or None,
    )


def _row(row: Row) -> TraceRow:
    service = " ".join(str(p) for p in (row["service_name"], row["service_version"]) if p)
    return TraceRow(
        turn_id=str(row["turn_id"]),
        started_at=iso_utc(row["started_us"]),
        root_agent=as_str(row["root_agent"]),
        models=[str(m) for m in as_list(row["models"])],
        service=service or None,
        latency_ms=as_float(row["latency_ms"]),
        total_tokens=as_int(row["total_tokens"]),
        llm_calls=as_int(row["llm_calls"]),
        tool_calls=as_int(row["tool_calls"]),
        tool_errors=as_int(row["tool_errors"]),
        is_error=bool(row["is_error"]),
        error_type=as_str(row["error_type"]),
        user_text=clip(as_str(row["user_text"]), _TEXT_CUT),
        final_text=clip(as_str(row["final_text"]), _TEXT_CUT),
    )
