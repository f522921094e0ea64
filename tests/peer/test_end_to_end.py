"""End to end: ADK's own unit cases and 400 generated cases replayed through a real agent
(a model that replays each case's recorded actual behaviour, one call a response), captured
as spans and scored by tracegrade: every turn and case scores as ADK's evaluators score
the same invocations, under every criterion.

Calls without arguments included (docs/metrics.md, "Calls without arguments"): their
execute_tool spans say `{}` either way, but the model call's response says whether the model
sent none, which ADK tells from `{}`; the oracle is ADK on the invocations exactly as recorded.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.peer.material import (
    Call,
    Key,
    PeerCase,
    answers,
    random_cases,
    replaying_agent,
    unit_cases,
)
from tests.peer.replay import capture_run, same_scores, scores_by_case
from tests.peer.test_scoring import RANDOM_CRITERIA, SPECS
from tests.support.adk_oracle import adk_scores, invocation
from tracegrade.evalset import load_eval_sets
from tracegrade.scoring import Selection, parse_config
from tracegrade.store import SpanWriter
from tracegrade.testing.script import ScriptedResponse

# An integration run as costly as the process tests (400-odd cases replayed through a real
# ADK agent before the first test, ~60 s): in the full suite, out of the fast tier.
pytestmark = pytest.mark.process

CASES = [*unit_cases(), *random_cases()]


def _user_text(case: PeerCase, index: int) -> str:
    return f"{case.case_id} turn {index}"


def _invocation(case: PeerCase, index: int) -> dict[str, Any]:
    turn = case.turns[index]
    written: dict[str, Any] = {
        "user_content": {"role": "user", "parts": [{"text": _user_text(case, index)}]},
        "intermediate_data": {"tool_uses": turn.expected.calls},
    }
    if turn.expected.final is not None:
        written["final_response"] = {"role": "model", "parts": [{"text": turn.expected.final}]}
    return written


def write_eval_set(folder: Path, cases: Sequence[PeerCase]) -> Path:
    conversations = [
        {"eval_id": c.case_id, "conversation": [_invocation(c, i) for i in range(len(c.turns))]}
        for c in cases
    ]
    path = folder / "peer.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "peer", "eval_cases": conversations}))
    return path


def script(cases: Sequence[PeerCase]) -> dict[Key, list[ScriptedResponse]]:
    """For each turn, keyed by the conversation so far: the recorded actual behaviour."""
    found: dict[Key, list[ScriptedResponse]] = {}
    for case in cases:
        users: Key = ()
        for index, turn in enumerate(case.turns):
            users = (*users, _user_text(case, index))
            found[users] = answers(turn.actual.calls, turn.actual.final)
    return found


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SpanWriter, Selection]]:
    folder = tmp_path_factory.mktemp("peer")
    writer = SpanWriter.open(folder / "peer.duckdb")
    eval_sets = load_eval_sets([str(write_eval_set(folder, CASES))])
    yield writer, capture_run(writer, eval_sets, replaying_agent(script(CASES)))
    writer.close()


def test_the_replay_made_the_recorded_calls(replayed: tuple[SpanWriter, Selection]) -> None:
    writer, selection = replayed
    rows = writer.connection.execute(
        "SELECT t.case_id, t.turn_index, t.final_text, coalesce(list({"
        "'name': c.name, 'args': CASE WHEN NOT c.args_omitted THEN c.args END} ORDER BY c.seq) "
        "FILTER (c.seq IS NOT NULL), []), t.is_error "
        "FROM scored_turns t LEFT JOIN tool_calls c USING (turn_id) GROUP BY ALL"
    ).fetchall()
    made = {(case, i): (final, _calls(calls), error) for case, i, final, calls, error in rows}
    recorded = {
        (case.case_id, i): (
            turn.actual.final or None,
            [{"name": c["name"], "args": c.get("args")} for c in turn.actual.calls],
            False,
        )
        for case in CASES
        for i, turn in enumerate(case.turns)
    }
    assert selection.run_id is not None
    assert {k: v for k, v in made.items() if recorded.get(k) != v} == {}
    assert made.keys() == recorded.keys()


def _calls(made: list[dict[str, Any]]) -> list[Call]:
    """As made: args None where the model sent none."""
    return [{"name": c["name"], "args": c["args"] and json.loads(c["args"])} for c in made]


def _adk(case: PeerCase, metric: str, criterion: dict[str, Any]) -> tuple[Any, ...]:
    actual = [invocation(t.actual.calls, t.actual.final) for t in case.turns]
    expected = [invocation(t.expected.calls, t.expected.final) for t in case.turns]
    adk = adk_scores(metric, criterion, actual, expected)
    return adk.turns, adk.case, adk.passed


def _criteria() -> list[tuple[str, dict[str, Any]]]:
    given = [*RANDOM_CRITERIA, *((c.metric or "", c.criterion or {}) for c in unit_cases())]
    distinct = {(metric, json.dumps(criterion, sort_keys=True)) for metric, criterion in given}
    return [(metric, json.loads(criterion)) for metric, criterion in sorted(distinct)]


@pytest.mark.parametrize(("metric", "criterion"), _criteria(), ids=lambda v: json.dumps(v))
def test_every_case_scores_as_in_adk(
    replayed: tuple[SpanWriter, Selection], metric: str, criterion: dict[str, Any]
) -> None:
    config = parse_config({"criteria": {metric: criterion}}, SPECS)
    ours = {case: value for (_, case), value in scores_by_case(*replayed, config, metric).items()}
    # ADK's own unit cases are scored under their own criterion, the generated ones under all.
    cases = [
        c for c in CASES if c.criterion is None or (c.metric, c.criterion) == (metric, criterion)
    ]
    differ: dict[str, Any] = {}
    for case in cases:
        oracle = _adk(case, metric, criterion)
        if not same_scores(ours[case.case_id], oracle):
            differ[case.case_id] = {"ours": ours[case.case_id], "adk": oracle}
    assert differ == {}
