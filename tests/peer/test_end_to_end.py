"""End to end: ADK's own unit cases and 400 generated cases replayed through a real agent
(a model that replays each case's recorded actual behaviour, one call a response), captured
as spans and scored by tracegrade: every turn and case scores as ADK's evaluators score
the same invocations, under every criterion.

The one difference is the documented one (docs/metrics.md, "Calls without arguments"): the
span of a call without arguments says `{}`, so tracegrade cannot tell it from `{}` where ADK
can. The oracle here is ADK on the invocations with `None` arguments written `{}`; the test
also checks that wherever this changes ADK's own score, such a call met `{}`.
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
    without_args_spelling,
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
        "SELECT t.case_id, t.turn_index, t.final_text, coalesce(tr.calls, []), t.is_error "
        "FROM scored_turns t LEFT JOIN trajectories tr USING (turn_id)"
    ).fetchall()
    made = {(case, i): (final, _calls(calls), error) for case, i, final, calls, error in rows}
    recorded = {
        (case.case_id, i): (
            turn.actual.final or None,
            without_args_spelling(turn.actual.calls),
            False,
        )
        for case in CASES
        for i, turn in enumerate(case.turns)
    }
    assert selection.run_id is not None
    assert {k: v for k, v in made.items() if recorded.get(k) != v} == {}
    assert made.keys() == recorded.keys()


def _calls(made: list[dict[str, Any]]) -> list[Call]:
    return [{"name": c["name"], "args": json.loads(c["args"])} for c in made]


def _adk(
    case: PeerCase, metric: str, criterion: dict[str, Any], spans_view: bool
) -> tuple[Any, ...]:
    def calls(given: list[Call]) -> list[Call]:
        return without_args_spelling(given) if spans_view else given

    actual = [invocation(calls(t.actual.calls), t.actual.final) for t in case.turns]
    expected = [invocation(calls(t.expected.calls), t.expected.final) for t in case.turns]
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
    differ, spelled = {}, []
    for case in cases:
        oracle = _adk(case, metric, criterion, spans_view=True)
        if not same_scores(ours[case.case_id], oracle):
            differ[case.case_id] = {"ours": ours[case.case_id], "adk": oracle}
        if not same_scores(oracle, _adk(case, metric, criterion, spans_view=False)):
            spelled.append(case)
    assert differ == {}
    # Where ADK itself scores otherwise, a call without arguments met `{}`, and only there.
    assert all(
        any(_none_meets_empty(t.actual.calls, t.expected.calls) for t in c.turns) for c in spelled
    )


def _none_meets_empty(actual: list[Call], expected: list[Call]) -> bool:
    """A call of a tool without arguments on one side, with `{}` on the other."""

    def spellings(calls: list[Call]) -> dict[str, set[bool]]:
        found: dict[str, set[bool]] = {}
        for call in calls:
            if not call.get("args"):
                found.setdefault(call["name"], set()).add(call.get("args") is None)
        return found

    ours, theirs = spellings(actual), spellings(expected)
    return any(ours[name] != theirs[name] for name in ours.keys() & theirs.keys())
