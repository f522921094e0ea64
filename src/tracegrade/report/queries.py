"""What the reports read, as SQL through a `Reader`: the only place they touch the database.

Every query orders its rows, and casts what a remote endpoint could not send as it is
(timestamps become epoch microseconds), so local and remote reads give equal reports.
"""

from __future__ import annotations

import datetime as dt
import functools
from typing import Any

from tracegrade._resources import queries_dir
from tracegrade.errors import TracegradeError, closest
from tracegrade.store.reader import Reader, records
from tracegrade.store.run_identity import run_receipts, run_token
from tracegrade.store.turn_facts import HAS_FACTS
from tracegrade.store.turn_facts import version as facts_version

Row = dict[str, Any]
CaseKey = tuple[str, str]
"""(eval_set_id, case_id)"""


class ReportError(TracegradeError):
    """The run or scoring asked for is not in the database."""


@functools.cache
def report_sql(name: str) -> str:
    """The SELECT of `queries/report/<name>.sql`."""
    return (queries_dir() / "report" / f"{name}.sql").read_text()


_SCORING = """
SELECT scoring_id, epoch_us(scored_at) AS scored_us, run_id, selection, config, turns,
       error_rate, verdict, exit_code, tracegrade_version
FROM scorings
WHERE {where}
ORDER BY scored_at DESC, scoring_id DESC
LIMIT 1
"""


def find_scoring(reader: Reader, scoring_id: str | None, run_id: str | None) -> Row:
    """The scoring asked for; else the latest of `run_id`; else the latest of any eval run,
    leaving out runs not signed under $TRACEGRADE_TOKEN when it is set."""
    if scoring_id is not None:
        rows = records(reader, _SCORING.format(where="scoring_id = ?"), [scoring_id])
        if not rows:
            raise ReportError(f"no scoring '{scoring_id}': `tracegrade runs` lists what is stored")
        return rows[0]
    if run_id is not None:
        rows = records(reader, _SCORING.format(where="run_id = ?"), [run_id])
        if not rows:
            run_row(reader, run_id)  # a run that is not stored cannot be scored either
            raise ReportError(
                f"run '{run_id}' has not been scored: "
                f"score it with `tracegrade score --run {run_id}`"
            )
        return rows[0]
    unsigned = _unsigned_runs(reader)
    # A `score --evalset` scoring's run is its own, with no run span to report on.
    where = "run_id IS NOT NULL AND NOT list_contains(?, run_id) AND selection->>'evalset' IS NULL"
    rows = records(reader, _SCORING.format(where=where), [unsigned])
    if not rows and unsigned:
        raise ReportError(
            "no scored eval run is signed under this token (recorded without it, or forged): "
            "name the run; `tracegrade runs` marks the unsigned ones"
        )
    if not rows:
        raise ReportError(
            "no eval run has been scored yet: `tracegrade run` records and scores one"
        )
    return rows[0]


def _unsigned_runs(reader: Reader) -> list[str]:
    token = run_token()
    if token is None:
        return []
    return [r.run_id for r in run_receipts(reader, token) if not r.attested]


def find_run_scoring(
    reader: Reader, scoring_id: str | None, run_id: str | None, instead: str | None = None
) -> Row:
    """`find_scoring`, refusing a scoring of traffic, which a run's report cannot show
    (`instead`: what shows it)."""
    scoring = find_scoring(reader, scoring_id, run_id)
    if scoring["run_id"] is None:
        hint = f": use {instead} for it" if instead else ""
        raise ReportError(
            f"scoring '{scoring['scoring_id']}' scored traffic, not an eval run{hint}"
        )
    return scoring


def run_row(reader: Reader, run_id: str) -> Row:
    rows = records(
        reader,
        "SELECT run_id, epoch_us(started_at) AS started_us, agent, eval_sets, models, repeats, "
        "parallel, cases, adk_version, tracegrade_version, git_commit "
        "FROM eval_runs WHERE run_id = ? ORDER BY received_at, started_at LIMIT 1",
        [run_id],
    )
    if not rows:
        stored = records(reader, "SELECT run_id FROM eval_runs ORDER BY started_at DESC", [])
        near = closest(run_id, [str(row["run_id"]) for row in stored])
        hint = f"did you mean {near}?" if near else "`tracegrade runs` lists the stored runs"
        raise ReportError(f"no eval run '{run_id}': {hint}")
    return rows[0]


def check_rule(reader: Reader, rule: str) -> None:
    """A rule that never scored traffic is refused, naming the closest rule that did."""
    found = records(
        reader,
        "SELECT DISTINCT selection->>'rule' AS rule FROM scorings "
        "WHERE run_id IS NULL AND selection->>'rule' IS NOT NULL ORDER BY 1",
    )
    known = [str(row["rule"]) for row in found]
    if rule in known:
        return
    near = closest(rule, known)
    hint = f"did you mean '{near}'? " if near else ""
    listed = ", ".join(known) if known else "none yet"
    raise ReportError(
        f"no online rule '{rule}' has scored traffic ({hint}rules that have: {listed})"
    )


def _only(cases: list[CaseKey] | None, table: str = "") -> tuple[str, list[Any]]:
    """A filter to the given cases (all when None), and its parameter."""
    if cases is None:
        return "", []
    return f" AND list_contains(?, [{table}eval_set_id, {table}case_id])", [
        [list(key) for key in cases]
    ]


def case_rows(reader: Reader, scoring_id: str, cases: list[CaseKey] | None = None) -> list[Row]:
    only, params = _only(cases)
    return records(
        reader,
        "SELECT eval_set_id, case_id, repeats, passed_repeats, failed_repeats, errored_repeats, "  # noqa: S608 — `only` holds placeholders
        f"verdict, flaky, failed_metrics FROM case_results WHERE scoring_id = ?{only} "
        "ORDER BY eval_set_id, case_id",
        [scoring_id, *params],
    )


def turn_rows(
    reader: Reader, run_id: str, facts: bool, cases: list[CaseKey] | None = None
) -> list[Row]:
    """The run's turns (of the given cases), each with the eval set's expected response;
    from the turn facts when `facts` (see `from_facts`), else from the `turns` view."""
    only, params = _only(cases, "t.")
    return records(
        reader,
        f"""
        SELECT t.eval_set_id, t.case_id, t.repeat, t.turn_index, t.turn_id, t.trace_id,
               t.user_text,
               t.final_text, e.final_text AS reference_text, t.latency_ms,
               t.input_tokens::BIGINT AS input_tokens, t.output_tokens::BIGINT AS output_tokens,
               t.total_tokens::BIGINT AS total_tokens, t.models, t.is_error, t.error_type,
               t.error_message
        FROM {"turn_facts" if facts else "turns"} t
        LEFT JOIN expected_turns e
          ON e.run_id = t.run_id AND e.eval_set_id = t.eval_set_id
         AND e.case_id = t.case_id AND e.turn_index = t.turn_index
        WHERE t.run_id = ?{only}
        ORDER BY t.eval_set_id, t.case_id, t.repeat, t.turn_index, t.turn_id
        """,  # noqa: S608 — a constant table name; `only` holds placeholders
        [run_id, *params],
    )


def call_rows(reader: Reader, trace_ids: list[str], facts: bool) -> list[Row]:
    """The tool calls in these traces, in order within each turn (AgentTool internals left
    out); from the turn facts when `facts`, else from the `tool_calls` view, by trace rather
    than by joining `turns`: the filter reaches the spans scan, and the turns view is not
    computed twice."""
    if facts:
        sql = (
            "SELECT c.turn_id, c.seq, c.name, c.raw_args AS args, c.args_captured, c.is_error, "
            "c.error_type, c.error_message "
            "FROM turn_fact_calls c JOIN turn_facts t USING (turn_id) "
            "WHERE list_contains(?, t.trace_id) ORDER BY c.turn_id, c.seq"
        )
    else:
        sql = (
            "SELECT turn_id, seq, name, args, args_captured, is_error, error_type, error_message "
            "FROM tool_calls WHERE list_contains(?, trace_id) AND seq IS NOT NULL "
            "ORDER BY turn_id, seq"
        )
    return records(reader, sql, [trace_ids])


def from_facts(reader: Reader, run_id: str) -> bool:
    """Whether the run's turns and calls can be read from the turn facts, which give the
    rows the views give: every trace of the run has fresh ones
    (queries/report/run_facts_fresh.sql). Planning the `turns` and `tool_calls` views is
    most of a small run's report."""
    if not records(reader, HAS_FACTS)[0]["found"]:  # a database made before migration 010
        return False
    fresh = records(reader, report_sql("run_facts_fresh"), [run_id, facts_version()])
    return bool(fresh[0]["fresh"])


def score_rows(
    reader: Reader, scoring_id: str, level: str, cases: list[CaseKey] | None = None
) -> list[Row]:
    only, params = _only(cases)
    return records(
        reader,
        "SELECT eval_set_id, case_id, repeat, turn_index, turn_id, metric, score, threshold, "  # noqa: S608 — `only` holds placeholders
        f"status, detail FROM scores WHERE scoring_id = ? AND level = ?{only} "
        "ORDER BY eval_set_id, case_id, repeat, turn_index, turn_id, metric",
        [scoring_id, level, *params],
    )


def iso_utc(epoch_us: Any) -> str | None:
    """Epoch microseconds as an ISO 8601 UTC time, to the second."""
    if epoch_us is None:
        return None
    moment = dt.datetime.fromtimestamp(int(epoch_us) / 1e6, dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
