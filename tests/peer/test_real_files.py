"""End to end on the 112 real eval files ADK loads: each case replayed through a real agent
whose model does what the file expects, except where a fixed rule changes it (a call
dropped, two swapped, a call repeated, an argument changed, the answer cut short), scored
with the file's own test_config.json, and compared with ADK's evaluators run with the
criteria ADK reads from that same file on the same invocations."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from google.adk.evaluation.eval_case import Invocation
from google.adk.evaluation.eval_config import (
    get_eval_metrics_from_config,
    get_evaluation_criteria_or_default,
)
from google.adk.evaluation.final_response_match_v1 import RougeEvaluator
from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator

from tests.evalset.evalset_adk_reference import load_with_adk
from tests.peer.material import Call, Key, answers, digest, file_id, real_files, replaying_agent
from tests.peer.replay import ScoredCases, capture_run, same_scores, score_cases
from tests.support.adk_oracle import RESPONSE, TRAJECTORY, invocation
from tracegrade.errors import EvalSetError
from tracegrade.evalset import ExpectedTurn, LoadedEvalSet, find_config, load_eval_set
from tracegrade.scoring import load_scoring_config
from tracegrade.store import SpanWriter

Behaviour = tuple[list[Call], str | None]


def behaviour(key: Key, turn: ExpectedTurn) -> Behaviour:
    """What the agent does in this turn: the expectation, changed by a rule the
    conversation so far picks (the same key always behaves the same)."""
    calls: list[Call] = [{"name": c.name, "args": c.args} for c in turn.tool_calls]
    final = turn.final_text
    rule = digest(key) % 6
    if rule == 2 and calls:
        calls = calls[:-1]
    elif rule == 3:
        calls = [calls[1], calls[0], *calls[2:]] if len(calls) > 1 else [*calls, *calls]
    elif rule == 4:
        calls = _one_argument_changed(calls)
    elif rule == 5:
        final = " ".join((final or "").split()[:-1]) or "An answer nobody expected."
    return calls, final


def _one_argument_changed(calls: list[Call]) -> list[Call]:
    for index, call in enumerate(calls):
        if call["args"]:
            name, value = next(iter(call["args"].items()))
            if isinstance(value, bool) or not isinstance(value, int | float | str):
                changed: Any = "changed"
            else:
                changed = value + 1 if not isinstance(value, str) else value + " (changed)"
            args = {**call["args"], name: changed}
            return [*calls[:index], {"name": call["name"], "args": args}, *calls[index + 1 :]]
    return [*calls, {"name": "unexpected_tool", "args": {}}]


def _keyed_turns(loaded: LoadedEvalSet) -> Iterator[tuple[Key, ExpectedTurn]]:
    for case in loaded.cases:
        if case.replayable:
            users: Key = ()
            for turn in case.turns:
                users = (*users, turn.user_text)
                yield users, turn


@cache
def loadable() -> dict[Path, LoadedEvalSet]:
    """Every file ADK loads (the others it refuses too: test_loading), each under an eval
    set id of its own: the same file at two commits keeps its id, and a run needs them apart."""
    found = {}
    for index, path in enumerate(real_files()):
        try:
            loaded = load_eval_set(path)
        except EvalSetError:
            continue
        found[path] = _renamed(loaded, f"{loaded.eval_set_id}#{index}")
    return found


def _renamed(loaded: LoadedEvalSet, eval_set_id: str) -> LoadedEvalSet:
    cases = tuple(dataclasses.replace(c, eval_set_id=eval_set_id) for c in loaded.cases)
    return dataclasses.replace(loaded, eval_set_id=eval_set_id, cases=cases)


@cache
def groups() -> list[list[Path]]:
    """The files in as few runs as can hold them: one behaviour for a conversation in a run
    (cases of different files often start with the same message)."""
    runs: list[tuple[list[Path], dict[Key, Behaviour]]] = []
    for path, loaded in loadable().items():
        mine = {key: behaviour(key, turn) for key, turn in _keyed_turns(loaded)}
        fits = (
            run
            for run in runs
            if not any(key in run[1] and run[1][key] != mine[key] for key in mine)
        )
        files, script = next(fits, None) or ([], {})
        if not files:
            runs.append((files, script))
        files.append(path)
        script.update(mine)
    return [files for files, _ in runs]


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[Path, ScoredCases]]:
    """Each run replayed and captured, then scored once for each criteria file its eval
    sets use (`tracegrade run` finds it as `adk eval` does: beside the file)."""
    writer = SpanWriter.open(tmp_path_factory.mktemp("real") / "real.duckdb")
    found: dict[Path, ScoredCases] = {}
    for files in groups():
        eval_sets = [loadable()[path] for path in files]
        script = {
            key: answers(*behaviour(key, turn)) for s in eval_sets for key, turn in _keyed_turns(s)
        }
        selection = capture_run(writer, eval_sets, replaying_agent(script))
        by_config: dict[Path | None, ScoredCases] = {}
        for path in files:
            config = find_config(path)
            if config not in by_config:
                criteria = load_scoring_config(None, [str(path)]).config
                by_config[config] = score_cases(writer, selection, criteria)
            found[path] = by_config[config]
    yield found
    writer.close()


def _adk_evaluators(path: Path) -> dict[str, Any]:
    """ADK's own evaluators for the metrics it can run offline, with the criteria ADK reads
    from the file's test_config.json (or its defaults)."""
    config = find_config(path)
    criteria = get_evaluation_criteria_or_default(str(config) if config else None)
    return {
        m.metric_name: (
            TrajectoryEvaluator(eval_metric=m) if m.metric_name == TRAJECTORY else RougeEvaluator(m)
        )
        for m in get_eval_metrics_from_config(criteria)
        if m.metric_name in (TRAJECTORY, RESPONSE)
    }


# An integration run as costly as the process tests (every real file replayed through a real
# ADK agent and scored, ~100 s of CPU): in the full suite, out of the fast tier.
@pytest.mark.process
@pytest.mark.parametrize("path", sorted(loadable(), key=str), ids=file_id)
def test_every_case_scores_as_in_adk(scored: dict[Path, ScoredCases], path: Path) -> None:
    ours = scored[path]
    loaded, adk_cases = loadable()[path], load_with_adk(path).eval_cases
    evaluators = _adk_evaluators(path)
    differ = {}
    for case, adk_case in zip(loaded.cases, adk_cases, strict=True):
        if not case.replayable or case.scenario is not None:
            continue  # a scenario is not replayed here: its parity is tests/harness's
        key = (loaded.eval_set_id, case.case_id)
        if not evaluators:  # only judged metrics: nothing evaluates the case
            assert ours.verdicts[key] == "not_evaluated"
        actual = _actual(case.turns)
        for metric, evaluator in evaluators.items():
            result = evaluator.evaluate_invocations(actual, adk_case.conversation)
            adk = (
                [r.score for r in result.per_invocation_results],
                result.overall_score,
                result.overall_eval_status.name == "PASSED",
            )
            if not same_scores(ours.metrics[key][metric], adk):
                differ[(case.case_id, metric)] = {"ours": ours.metrics[key][metric], "adk": adk}
    assert differ == {}


def _actual(turns: tuple[ExpectedTurn, ...]) -> list[Invocation]:
    actual: list[Invocation] = []
    users: Key = ()
    for turn in turns:
        users = (*users, turn.user_text)
        calls, final = behaviour(users, turn)
        actual.append(invocation(calls, final or None, user=turn.user_text))
    return actual


def test_the_rules_change_what_is_scored() -> None:
    # Not vacuous: each rule applied somewhere, and the files share runs.
    rules = {digest(key) % 6 for path in loadable() for key, _ in _keyed_turns(loadable()[path])}
    assert rules == set(range(6))
    assert 1 < len(groups()) < len(loadable()) / 10
