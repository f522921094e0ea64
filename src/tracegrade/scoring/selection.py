"""Which turns to score: one eval run, or a deterministic sample of traffic."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import time
from dataclasses import dataclass
from typing import Any

import duckdb

from tracegrade.errors import ConfigError, DatabaseError
from tracegrade.scoring.selected import drop_selected, select_traces
from tracegrade.store.readonly import check_condition, guarded_rows

_TRACE_ID_SPACE = 2**64
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)([smhd])$")
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_since(text: str) -> dt.timedelta:
    """A `--since` value: a number and a unit, `30m`, `24h`, `7d`."""
    match = _DURATION.match(text.strip())
    if not match:
        raise ConfigError(f"--since {text!r}: give a number and a unit, e.g. 30m, 24h or 7d")
    return dt.timedelta(seconds=float(match[1]) * _UNIT_S[match[2]])


def window_text(seconds: float) -> str:
    """A window in the unit a person gives it: `24h`, `7d`, `90m`, `45s` (the inverse of
    `parse_since`). The largest unit that divides it whole, but a day reads `24h`, as a
    one-day window is usually asked for; a fraction of a second stays in seconds."""
    for unit in ("d", "h", "m"):
        size = _UNIT_S[unit]
        if seconds >= size and seconds % size == 0 and seconds != _UNIT_S["d"]:
            return f"{seconds / size:g}{unit}"
    if seconds == _UNIT_S["d"]:
        return "24h"
    return f"{seconds:g}s"


def traffic_words(since_s: float | None, sample: float | None, where: str | None) -> str:
    """Which traffic turns a selection takes, in words: `traffic of the last 24h sampled
    at 5% of trace ids where ...`, or `all traffic`."""
    if since_s is None and sample is None and where is None:
        return "all traffic"
    parts = ["traffic"]
    if since_s is not None:
        parts.append(f"of the last {window_text(since_s)}")
    if sample is not None:
        # A share under 1% keeps its digits: 0.01% is not 0%.
        share = f"{sample:.0%}" if sample >= 0.01 or sample == 0 else f"{sample * 100:.2g}%"
        parts.append(f"sampled at {share} of trace ids")
    if where is not None:
        parts.append(f"where {where}")
    return " ".join(parts)


@dataclass(frozen=True)
class Selection:
    """`run_id` picks an eval run; without it, traffic (turns of no eval run) is scored,
    narrowed by `since`, a `sample` share and a `where` predicate over the `turns` view.

    A `where` is the user's SQL: it never becomes part of the scoring's own statements,
    which write. `resolved()` runs it first through the read-only guard and keeps the ids
    of the turns it picks; the scoring then selects those ids."""

    run_id: str | None = None
    since: dt.timedelta | None = None
    sample: float | None = None
    where: str | None = None
    turn_ids: tuple[str, ...] | None = None
    """The turns `where` picked (set by `resolved()`)."""
    evalset: str | None = None
    """`score --evalset`: the eval-set file whose cases stored sessions were matched to
    (`run_id` is then the scoring's own, scoring/matching.py)."""
    now_ns: int | None = None
    """The end of the `since` window (default: now, when a clause is made). Spark's tasks
    are given the driver's, so that every task cuts at the same instant."""

    def cutoff_ns(self) -> int:
        """The start of the `since` window: a turn starting at or after it is selected."""
        assert self.since is not None
        now = self.now_ns if self.now_ns is not None else time.time_ns()
        return now - int(self.since.total_seconds() * 1e9)

    def resolved(self, connection: duckdb.DuckDBPyConnection) -> Selection:
        """This selection with `where` evaluated read-only into `turn_ids`."""
        if self.where is None or self.turn_ids is not None:
            return self
        traces = self.trace_predicate()  # before the clauses: its `since` cut is the earlier
        clauses, params = self._clauses()
        try:
            condition = check_condition(self.where, "turns")
            # Over the turns of the traces the other options keep (every trace without
            # them), named `turns` as the condition was checked: the scoring tables build
            # the turns from each span once, where the view would normalise every span
            # again for each view it reads (measured at 1.16M ADK spans: 17 s CPU
            # against 25 s through the view).
            select_traces(connection, traces)
            query = f"SELECT turn_id FROM scoring_turns AS turns WHERE {clauses} AND {condition}"  # noqa: S608 — the condition passed the guard; the whole query passes it again
            rows = guarded_rows(connection, query, params)
        except DatabaseError as exc:
            raise ConfigError(f"where {self.where!r}: {exc}") from None
        finally:
            drop_selected(connection)
        return dataclasses.replace(self, turn_ids=tuple(str(row[0]) for row in rows))

    def predicate(self) -> tuple[str, list[Any]]:
        """A WHERE clause over `turns`, and its parameters (run `resolved()` first)."""
        if self.where is None:
            return self._clauses()
        if self.turn_ids is None:
            raise ValueError("a selection with `where` must be resolved() before scoring")
        # The ids were found with every other clause too.
        return "turn_id IN (SELECT unnest(?::VARCHAR[]))", [list(self.turn_ids)]

    def _clauses(self) -> tuple[str, list[Any]]:
        clauses: list[str] = []
        params: list[Any] = []
        if self.run_id is not None:
            clauses.append("run_id = ?")
            params.append(self.run_id)
        else:
            clauses.append("run_id IS NULL")
        if self.since is not None:
            clauses.append("start_ns >= ?")
            params.append(self.cutoff_ns())
        if self.sample is not None:
            # The decision of OTel's TraceIdRatioBased sampler: the trace id's low 64 bits
            # under rate * 2^64. The same trace is always in or out.
            clauses.append("('0x' || right(trace_id, 16))::UBIGINT::HUGEINT < ?::HUGEINT")
            params.append(round(self.sample * _TRACE_ID_SPACE))
        return " AND ".join(clauses), params

    def trace_predicate(self) -> tuple[str, list[Any]] | None:
        """A WHERE clause over `spans` keeping every trace that holds a selected turn (and
        maybe others: `predicate()` still decides), so that scoring normalises those traces'
        spans only; None when every trace may. A view's row depends only on its own trace's
        spans, so the selected turns come out as the views give them."""
        if self.turn_ids is not None:
            # The traces of the turns `where` picked (a turn id is its trace id, '-', its
            # span id): a `since` cut again now would drop the turns near its edge.
            ids = [turn.split("-", 1)[0] for turn in self.turn_ids]
            return "trace_id IN (SELECT unnest(?::VARCHAR[]))", [ids]
        clauses: list[str] = []
        params: list[Any] = []
        if self.run_id is not None:
            # A turn's run id is on its root span: the traces with a span carrying it.
            clauses.append(
                'trace_id IN (SELECT trace_id FROM spans WHERE attrs."tracegrade.run_id" = ? '
                "UNION ALL SELECT trace_id FROM spans "
                "WHERE attrs IS NULL AND attributes->>'tracegrade.run_id' = ?)"
            )
            params += [self.run_id, self.run_id]
        if self.since is not None:
            clauses.append("trace_id IN (SELECT trace_id FROM spans WHERE start_ns >= ?)")
            params.append(self.cutoff_ns())
        if self.sample is not None:  # as in predicate(): on the trace id alone
            clauses.append("('0x' || right(trace_id, 16))::UBIGINT::HUGEINT < ?::HUGEINT")
            params.append(round(self.sample * _TRACE_ID_SPACE))
        return (" AND ".join(clauses), params) if clauses else None

    def describe(self) -> dict[str, Any]:
        described = {
            "run_id": self.run_id,
            "since_s": self.since.total_seconds() if self.since else None,
            "sample": self.sample,
            "where": self.where,
        }
        if self.evalset is not None:
            described["evalset"] = self.evalset
        return described
