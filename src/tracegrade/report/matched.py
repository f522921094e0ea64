"""The report of a `score --evalset` scoring: each case's verdict and scores, and what did
not match (cases no session was scored as, sessions scored as no case).

Its run is the scoring's own (no run span holds an agent or a start time), so this reads
only the scoring's rows of `case_results` and `scores`.
"""

from __future__ import annotations

from typing import Any

from tracegrade.store.reader import Reader, records

_CASES = """
SELECT eval_set_id, case_id, verdict, repeats, passed_repeats, failed_repeats,
       errored_repeats, failed_metrics
FROM case_results WHERE scoring_id = ?
ORDER BY eval_set_id, case_id
"""

_SCORES = """
SELECT eval_set_id, case_id, repeat, metric, score, status
FROM scores WHERE scoring_id = ? AND level = 'case'
ORDER BY eval_set_id, case_id, repeat, metric
"""


_SHOWN_SESSIONS = 20
"""Production holds thousands of sessions no case matches: the text shows the first."""


def matched_cases(reader: Reader, scoring_id: str) -> list[dict[str, Any]]:
    """Each case's outcome, with its case-level scores per repeat ({metric: score})."""
    scores: dict[tuple[str, str], dict[int, dict[str, Any]]] = {}
    for row in records(reader, _SCORES, [scoring_id]):
        repeats = scores.setdefault((row["eval_set_id"], row["case_id"]), {})
        repeats.setdefault(row["repeat"], {})[row["metric"]] = {
            "score": row["score"],
            "status": row["status"],
        }
    cases = []
    for row in records(reader, _CASES, [scoring_id]):
        per_repeat = scores.get((row["eval_set_id"], row["case_id"]), {})
        cases.append({**row, "scores": [per_repeat[r] for r in sorted(per_repeat)]})
    return cases


def matched_document(
    matching: dict[str, Any], result: dict[str, Any], cases: list[Any]
) -> dict[str, Any]:
    """The JSON report (`--json`): the scoring, its cases, and the matching."""
    return {
        "scoring_id": result["scoring_id"],
        "run_id": result["run_id"],
        "verdict": result["verdict"],
        "exit_code": int(result["exit_code"]),
        "turns": result["turns"],
        "cases": cases,
        **matching,
    }


def render_matched(document: dict[str, Any]) -> str:
    """The report as text: one line a case, then what did not match."""
    lines = [
        f"{document['evalset']}: {document['matched_sessions']} session(s) scored as "
        f"{document['matched_cases']} case(s); scoring {document['scoring_id']}: "
        f"{document['verdict']}"
    ]
    for case in document["cases"]:
        metrics = _case_scores(case["scores"])
        lines.append(
            f"  {case['eval_set_id']}/{case['case_id']}: {case['verdict']} "
            f"({case['repeats']} repeat(s)){metrics}"
        )
    unmatched = document["unmatched_cases"]
    if unmatched:
        lines.append(f"{len(unmatched)} case(s) matched no session:")
        lines += [f"  {c['eval_set_id']}/{c['case_id']}: {c['reason']}" for c in unmatched]
    sessions = document["unmatched_sessions"]
    if sessions:
        lines.append(f"{len(sessions)} session(s) of no eval run scored as no case:")
        lines += [f"  {_session(s)}" for s in sessions[:_SHOWN_SESSIONS]]
        if len(sessions) > _SHOWN_SESSIONS:
            lines.append(f"  ... and {len(sessions) - _SHOWN_SESSIONS} more (--json lists all)")
    return "\n".join(lines) + "\n"


def _case_scores(repeats: list[dict[str, dict[str, Any]]]) -> str:
    """` metric=score ...` over the repeats' case scores (their mean), gating or not."""
    values: dict[str, list[float]] = {}
    for repeat in repeats:
        for metric, entry in repeat.items():
            if entry["score"] is not None:
                values.setdefault(metric, []).append(entry["score"])
    shown = [f"{m}={sum(v) / len(v):.3g}" for m, v in sorted(values.items())]
    return (": " + " ".join(shown)) if shown else ""


def _session(session: dict[str, Any]) -> str:
    name = session["session_id"] or "a turn without a session id"
    texts = [t if t is not None else "(not captured)" for t in session["user_texts"]][:3]
    opening = "; user: " + " | ".join(repr(t) for t in texts) if texts else ""
    if session["matches"]:
        why = "ambiguous, matches " + ", ".join(session["matches"])
    else:
        why = "matches no case"
    return f"{name} ({session['turns']} turn(s)): {why}{opening}"
