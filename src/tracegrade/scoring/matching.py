"""Stored sessions that no eval run produced, matched to an eval set's cases, so that
scoring sees them as an eval run's case repeats (`tracegrade score --evalset`).

The rule (docs/score-evalset.md): a session matches a case when its turns' user messages,
in the order the turns started, equal the case's invocations' user messages in order:
as many turns, each text equal after trimming the spaces, tabs and line breaks around it.
The texts are read as tracegrade reads them everywhere (the case's text parts joined by a
newline, as ADK's response metrics read them; the turn's latest real user message of its
first model call, which the `turns` view gives). Every session matching a case is one repeat of it,
oldest first. A session that matches two or more cases (their user messages are the same)
is ambiguous and is scored against none. A case no session matched is planned and not
run, as a case a stopped run never reached. Conversation scenarios are never matched:
their user messages were the simulator's.

The matched turns take a scoring-only eval run id, and the cases' expectations go in as
eval-case rows under it, exactly as `tracegrade run` records them; every metric then reads
its inputs (queries/scoring/01_inputs.sql) unchanged.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field

import duckdb

from tracegrade.evalset import Case
from tracegrade.harness.record import CASE_ID, EVAL_SET_ID, EXPECTED, RUN_ID, case_expected

SCENARIO = "a conversation scenario: its user messages were simulated, so no session is matched"


def matched_run_id() -> str:
    """The eval run id the matched sessions are scored under (stored in `scores`)."""
    return f"evalset-{uuid.uuid4().hex[:12]}"


@dataclass(frozen=True)
class UnmatchedCase:
    eval_set_id: str
    case_id: str
    reason: str


@dataclass(frozen=True)
class UnmatchedSession:
    session_id: str | None
    """None: turns that recorded no session id (each is its own entry)."""
    turns: int
    user_texts: tuple[str | None, ...]
    matches: tuple[str, ...] = ()
    """The cases it matched, when more than one (ambiguous); empty when none."""


@dataclass(frozen=True)
class Matching:
    """What was matched, and what was not."""

    matched_sessions: int = 0
    matched_cases: int = 0
    unmatched_cases: tuple[UnmatchedCase, ...] = ()
    unmatched_sessions: tuple[UnmatchedSession, ...] = field(default_factory=tuple)


# The cases' expected turns as the judges read them (queries/judging/01_turns.sql), kept
# past the selected tables' drop: judging runs after the inputs are made. Columns as the
# expected_turns view's.
MATCHED_EXPECTED = """
CREATE TEMP TABLE IF NOT EXISTS scoring_matched_expected (
    run_id VARCHAR, eval_set_id VARCHAR, case_id VARCHAR, turn_index INTEGER,
    user_text VARCHAR, final_text VARCHAR, n_tool_calls INTEGER, tool_calls JSON,
    intermediate_texts JSON, rubrics JSON, case_rubrics JSON
)
"""

_SESSIONS = """
CREATE OR REPLACE TEMP TABLE scoring_sessions AS
SELECT
    session_id,
    list(turn_id ORDER BY start_ns, turn_id) AS turn_ids,
    list(user_text ORDER BY start_ns, turn_id) AS user_texts,
    list(coalesce(trim(user_text, e' \t\n\r'), '') ORDER BY start_ns, turn_id) AS keys,
    min(start_ns) AS start_ns
FROM scoring_turns
WHERE run_id IS NULL AND session_id IS NOT NULL
GROUP BY session_id
"""

# Each case's user messages in order, the key a session must equal.
_CASE_KEYS = """
SELECT eval_set_id, case_id,
       list(coalesce(trim(user_text, e' \t\n\r'), '') ORDER BY turn_index) AS keys
FROM scoring_expected_turns
GROUP BY eval_set_id, case_id
"""

_MATCHES = """
CREATE OR REPLACE TEMP TABLE scoring_session_cases AS
WITH cases AS ({cases}),
pairs AS (
    SELECT s.session_id, s.start_ns, c.eval_set_id, c.case_id,
           count(*) OVER (PARTITION BY s.session_id) AS candidates
    FROM scoring_sessions s JOIN cases c ON c.keys = s.keys
)
SELECT session_id, eval_set_id, case_id, candidates,
       (row_number() OVER (PARTITION BY eval_set_id, case_id ORDER BY start_ns, session_id)
        - 1)::INTEGER AS repeat
FROM pairs
"""

_MAPPING = """
CREATE OR REPLACE TEMP TABLE scoring_matches AS
WITH flat AS (
    SELECT m.eval_set_id, m.case_id, m.repeat, unnest(s.turn_ids) AS turn_id,
           generate_subscripts(s.turn_ids, 1) - 1 AS turn_index
    FROM scoring_session_cases m JOIN scoring_sessions s USING (session_id)
    WHERE m.candidates = 1
)
SELECT turn_id, ?::VARCHAR AS run_id, eval_set_id, case_id, repeat,
       turn_index::INTEGER AS turn_index
FROM flat
"""

# A case's repeats: its sessions, else one planned repeat that did not run.
_REPEATS = """
CREATE OR REPLACE TEMP TABLE scoring_case_repeats AS
WITH cases AS ({cases})
SELECT ?::VARCHAR AS run_id, c.eval_set_id, c.case_id,
       greatest(count(m.session_id), 1)::INTEGER AS repeats
FROM cases c
LEFT JOIN scoring_session_cases m
  ON m.eval_set_id = c.eval_set_id AND m.case_id = c.case_id AND m.candidates = 1
GROUP BY ALL
"""

_UNMATCHED_SESSIONS = """
SELECT s.session_id, len(s.turn_ids), s.user_texts,
       coalesce(list(m.eval_set_id || '/' || m.case_id ORDER BY m.eval_set_id, m.case_id)
                FILTER (m.case_id IS NOT NULL), [])
FROM scoring_sessions s
LEFT JOIN scoring_session_cases m USING (session_id)
GROUP BY ALL
HAVING count(m.case_id) <> 1
ORDER BY min(s.start_ns), s.session_id
"""

_NO_SESSION = """
SELECT user_text FROM scoring_turns
WHERE run_id IS NULL AND session_id IS NULL
ORDER BY start_ns, turn_id
"""


def match_sessions(
    connection: duckdb.DuckDBPyConnection, run_id: str, cases: Sequence[Case]
) -> Matching:
    """Match the selected traces' sessions (queries/scoring/00_selected.sql and
    00_expected.sql have made them ready) to `cases`; leave `scoring_matches` (turn → run,
    eval set, case, repeat, turn), the cases' expectations in `scoring_expected_turns` and
    their repeats in `scoring_case_repeats`, as an eval run's would be."""
    conversations = [c for c in cases if c.scenario is None and c.turns]
    _replace_expected(connection, run_id, conversations)
    cases_sql = _CASE_KEYS
    connection.execute(_SESSIONS)
    connection.execute(_MATCHES.format(cases=cases_sql))
    connection.execute(_MAPPING, [run_id])
    connection.execute(_REPEATS.format(cases=cases_sql), [run_id])
    matched = {
        (row[0], row[1])
        for row in connection.execute(
            "SELECT DISTINCT eval_set_id, case_id FROM scoring_matches"
        ).fetchall()
    }
    unmatched = [
        UnmatchedCase(c.eval_set_id, c.case_id, SCENARIO)
        if c.scenario is not None or not c.turns
        else UnmatchedCase(c.eval_set_id, c.case_id, _why_unmatched(connection, c))
        for c in cases
        if (c.eval_set_id, c.case_id) not in matched
    ]
    sessions = [
        UnmatchedSession(row[0], row[1], tuple(row[2]), tuple(row[3]))
        for row in connection.execute(_UNMATCHED_SESSIONS).fetchall()
    ]
    sessions += [
        UnmatchedSession(None, 1, (row[0],)) for row in connection.execute(_NO_SESSION).fetchall()
    ]
    (count,) = connection.execute(
        "SELECT count(*) FROM scoring_session_cases WHERE candidates = 1"
    ).fetchall()[0]
    return Matching(
        matched_sessions=count,
        matched_cases=len(matched),
        unmatched_cases=tuple(unmatched),
        unmatched_sessions=tuple(sessions),
    )


def _replace_expected(
    connection: duckdb.DuckDBPyConnection, run_id: str, cases: Sequence[Case]
) -> None:
    """The eval set's cases as eval-case rows of `run_id`, in place of the selected traces'
    own (the eval runs' cases are not scored here): tg_expected_turns reads them as it reads
    a run's eval-case spans."""
    connection.execute("DELETE FROM scoring_case_spans")
    rows = [
        [
            json.dumps(
                {
                    RUN_ID: run_id,
                    EVAL_SET_ID: case.eval_set_id,
                    CASE_ID: case.case_id,
                    EXPECTED: json.dumps(case_expected(case)),
                }
            )
        ]
        for case in cases
    ]
    if rows:
        connection.executemany(
            "INSERT INTO scoring_case_spans (scope_name, name, attributes) "
            "VALUES ('tracegrade', 'tracegrade.eval_case', ?::JSON)",
            rows,
        )
    connection.execute(
        "CREATE OR REPLACE TEMP TABLE scoring_expected_turns AS "
        "SELECT * FROM tg_expected_turns('scoring_case_spans')"
    )
    connection.execute(
        "CREATE OR REPLACE TEMP TABLE scoring_matched_expected AS "
        "SELECT * FROM scoring_expected_turns"
    )


def drop_matched(connection: duckdb.DuckDBPyConnection) -> None:
    """What matching kept for the judges, once the scoring is done."""
    connection.execute("DROP TABLE IF EXISTS scoring_matched_expected")


def _why_unmatched(connection: duckdb.DuckDBPyConnection, case: Case) -> str:
    rivals = connection.execute(
        "SELECT count(DISTINCT session_id) FROM scoring_session_cases "
        "WHERE eval_set_id = ? AND case_id = ? AND candidates > 1",
        [case.eval_set_id, case.case_id],
    ).fetchall()[0][0]
    if rivals:
        return (
            f"{rivals} session(s) match it and another case with the same user messages: "
            "ambiguous, scored against neither"
        )
    first = case.turns[0].user_text
    return f"no stored session has its {len(case.turns)} user message(s), opening {first!r}"
