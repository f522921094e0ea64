"""Which turns to score: one eval run, or a deterministic sample of traffic."""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass
from typing import Any

_TRACE_ID_SPACE = 2**64


@dataclass(frozen=True)
class Selection:
    """`run_id` picks an eval run; without it, traffic (turns of no eval run) is scored,
    narrowed by `since`, a `sample` share and a `where` predicate over the `turns` view."""

    run_id: str | None = None
    since: dt.timedelta | None = None
    sample: float | None = None
    where: str | None = None

    def predicate(self) -> tuple[str, list[Any]]:
        """A WHERE clause over `turns`, and its parameters."""
        clauses: list[str] = []
        params: list[Any] = []
        if self.run_id is not None:
            clauses.append("run_id = ?")
            params.append(self.run_id)
        else:
            clauses.append("run_id IS NULL")
        if self.since is not None:
            clauses.append("start_ns >= ?")
            params.append(time.time_ns() - int(self.since.total_seconds() * 1e9))
        if self.sample is not None:
            # The decision of OTel's TraceIdRatioBased sampler: the trace id's low 64 bits
            # under rate * 2^64. The same trace is always in or out.
            clauses.append("('0x' || right(trace_id, 16))::UBIGINT::HUGEINT < ?::HUGEINT")
            params.append(round(self.sample * _TRACE_ID_SPACE))
        if self.where:
            clauses.append(f"({self.where})")
        return " AND ".join(clauses), params

    def trace_predicate(self) -> tuple[str, list[Any]] | None:
        """A WHERE clause over `spans` keeping every trace that holds a selected turn (and
        maybe others: `predicate()` still decides), so that scoring normalises those traces'
        spans only; None when every trace may. A view's row depends only on its own trace's
        spans, so the selected turns come out as the views give them."""
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
            params.append(time.time_ns() - int(self.since.total_seconds() * 1e9))
        if self.sample is not None:  # as in predicate(): on the trace id alone
            clauses.append("('0x' || right(trace_id, 16))::UBIGINT::HUGEINT < ?::HUGEINT")
            params.append(round(self.sample * _TRACE_ID_SPACE))
        return (" AND ".join(clauses), params) if clauses else None

    def describe(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "since_s": self.since.total_seconds() if self.since else None,
            "sample": self.sample,
            "where": self.where,
        }
