"""Turning recorded turns into eval cases: new golden cases from real traffic.

Each selected turn becomes part of a case holding its session's conversation up to that
turn, so a replay has the history the agent had. Expected tool calls and the reference
response are what the agent did then: review them before trusting them.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from tracegrade.errors import DatabaseError, EvalSetError
from tracegrade.evalset.cases import Case, ExpectedCall, ExpectedTurn
from tracegrade.store.reader import Reader, records
from tracegrade.store.readonly import check_condition, read_only_statement

_TURNS = """
WITH chosen AS (
    SELECT session_id, max(start_ns) AS until_ns
    FROM turns
    WHERE {where} AND session_id IS NOT NULL AND run_id IS NULL
    GROUP BY session_id
    ORDER BY max(start_ns) DESC
    LIMIT ?
)
SELECT t.turn_id, t.session_id, t.user_text, t.final_text, t.args_captured, t.is_error
FROM turns t JOIN chosen c USING (session_id)
WHERE t.start_ns <= c.until_ns AND t.run_id IS NULL
ORDER BY t.session_id, t.start_ns
"""

# A call the model sent without arguments is expected without them: ADK tells None from {}.
_CALLS = """
SELECT turn_id, name, CASE WHEN args_omitted THEN NULL ELSE args END AS args FROM tool_calls
WHERE seq IS NOT NULL AND turn_id IN (SELECT unnest(?::VARCHAR[]))
ORDER BY turn_id, seq
"""


@dataclass
class Exported:
    cases: list[Case] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def cases_from_traffic(reader: Reader, where: str, eval_set_id: str, limit: int = 100) -> Exported:
    """One case per session with a turn matching `where` (SQL over the turns view).

    `where` is the user's SQL: it passes the read-only guard, as does the query holding it,
    and the reader runs that query read-only (a server checks it once more)."""
    try:
        query = _TURNS.format(where=check_condition(where, "turns"))
        read_only_statement(query)
    except DatabaseError as exc:
        raise EvalSetError(f"--where {where!r}: {exc}") from None
    turns = records(reader, query, [limit])
    if not turns:
        raise EvalSetError(f"no recorded turns match: {where}")
    calls: dict[str, list[ExpectedCall]] = defaultdict(list)
    for row in records(reader, _CALLS, [[t["turn_id"] for t in turns]]):
        calls[row["turn_id"]].append(ExpectedCall(row["name"], _args(row["args"])))
    by_session: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for turn in turns:
        by_session[turn["session_id"]].append(turn)
    exported = Exported()
    for session, rows in by_session.items():
        case = _case(eval_set_id, session, rows, calls, exported.warnings)
        if case:
            exported.cases.append(case)
    return exported


def _case(
    eval_set_id: str,
    session: str,
    rows: list[dict[str, Any]],
    calls: dict[str, list[ExpectedCall]],
    warnings: list[str],
) -> Case | None:
    if any(row["user_text"] is None for row in rows):
        warnings.append(f"session {session}: user text was not captured, so it cannot be replayed")
        return None
    if any(row["args_captured"] is False for row in rows):
        warnings.append(f"session {session}: tool arguments were not captured; only names are kept")
    if any(row["is_error"] for row in rows):
        warnings.append(f"session {session}: a turn crashed; its expectations are what happened")
    turns = tuple(
        ExpectedTurn(i, row["user_text"], row["final_text"], tuple(calls.get(row["turn_id"], ())))
        for i, row in enumerate(rows)
    )
    return Case(eval_set_id, _case_id(session), None, turns)


def _args(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    value = json.loads(text)
    return value if isinstance(value, dict) else {"value": value}


def _case_id(session: str) -> str:
    return "traffic_" + re.sub(r"[^A-Za-z0-9_.-]", "_", session)
