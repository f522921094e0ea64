"""Judging the scored turns, before the scorers run.

For each configured judged metric and each conversation (a case repeat, or a traffic turn
with its session so far): the metric's run (adk_runs, other_runs) asks the judge through
one `JudgeCaller`, which answers from `judgements` when it can. Every answer used goes to
`scored_judgements` for the metric's SQL scorer; the new ones into `judgements`; a row per
metric into `judge_usage`. Conversations are judged in the order a sample takes turns (by
trace id), so a budget that runs out leaves a deterministic sample judged.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

import duckdb

from tracegrade.errors import TracegradeError
from tracegrade.scoring.judging import adk_runs, other_runs, simulator_runs, store
from tracegrade.scoring.judging.budget import price_for
from tracegrade.scoring.judging.calls import Answer, JudgeCaller
from tracegrade.scoring.judging.plan import Group, MetricPlan, Results
from tracegrade.scoring.judging.settings import JudgeSettings, Stop
from tracegrade.scoring.judging.turns import TurnData, load_turns

Run = Callable[[MetricPlan, Group, JudgeCaller], Awaitable[Results]]
RUNS: dict[str, Run] = {
    "per_turn": adk_runs.per_turn,
    "last_turn": adk_runs.last_turn,
    "steps": adk_runs.steps,
    "simulator": simulator_runs.simulator,
    "vertex": other_runs.vertex,
    "template": other_runs.templated,
}

_HISTORY = """
SELECT s.turn_id, h.turn_id
FROM scored_turns s
JOIN turns h ON h.session_id = s.session_id AND h.start_ns < s.start_ns AND h.run_id IS NULL
WHERE s.run_id IS NULL AND s.session_id IS NOT NULL
"""

T = TypeVar("T")
_STOP_POLL_S = 0.1
_CAPTURE_HINT = " (set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY)"


@dataclass(frozen=True)
class JudgingSummary:
    answers: int
    calls: int
    failed: int
    unjudged: int


def run_judges(
    connection: duckdb.DuckDBPyConnection,
    plans: list[MetricPlan],
    settings: JudgeSettings,
    prices: dict[str, dict[str, Any]],
    scoring_id: str,
    stop: Stop | None = None,
) -> JudgingSummary:
    """Judge every scored turn for every plan; fill `scored_judgements` and `judge_usage`."""
    scored = [r[0] for r in connection.execute("SELECT turn_id FROM scored_turns").fetchall()]
    history = connection.execute(_HISTORY).fetchall()
    turns = load_turns(connection, [h for _, h in history])
    groups = _groups(turns, scored, history)
    cache = store.load_cache(connection, [p.name for p in plans])
    judge_prices = {p.judge.name: price_for(p.judge.model, prices) for p in plans if p.judge}
    caller = JudgeCaller(settings, cache, judge_prices)
    answers: list[Answer] = []
    try:
        judging = _judge_all(plans, groups, caller, connection, scoring_id)
        answers = run_coroutine(_until_stopped(judging, stop))
    finally:
        store.write_scored(connection, answers)
    store.write_usage(connection, scoring_id, settings.budget_usd)
    return JudgingSummary(
        answers=len(answers),
        calls=sum(1 for a in answers if a.new),
        failed=sum(1 for a in answers if a.outcome == "failed"),
        unjudged=sum(1 for a in answers if a.outcome == "unjudged"),
    )


async def _judge_all(
    plans: list[MetricPlan],
    groups: list[Group],
    caller: JudgeCaller,
    connection: duckdb.DuckDBPyConnection,
    scoring_id: str,
) -> list[Answer]:
    answers: list[Answer] = []
    sink = store.Sink(connection, scoring_id)

    async def one(plan: MetricPlan, group: Group) -> None:
        missing = next((m for m in (t.missing_content() for t in group.turns) if m), None)
        if missing is not None:  # a judge would see a different turn from the agent's
            results = Results()
            results.skip(plan, group.targets, "not_applicable", missing + _CAPTURE_HINT)
        else:
            results = await RUNS[plan.mode](plan, group, caller)
        answers.extend(results.answers)
        # Stored as conversations are done: an interrupted scoring keeps what it paid for.
        sink.add(results.answers)

    try:
        await asyncio.gather(*(one(plan, group) for group in groups for plan in plans))
    finally:
        sink.close()
    return answers


class JudgingStopped(TracegradeError):
    """The scoring was stopped while its judges were being asked."""


async def _until_stopped(work: Coroutine[Any, Any, T], stop: Stop | None) -> T:
    """`work`, cancelled once `stop` gives a reason (asked every 0.1 s): a judge call can
    take minutes, and nothing else would end it."""
    task = asyncio.ensure_future(work)
    while stop is not None and not task.done():
        await asyncio.wait({task}, timeout=_STOP_POLL_S)
        reason = stop()
        if reason is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            raise JudgingStopped(f"the judges' calls were stopped: {reason}")
    return await task


def _groups(
    turns: dict[str, TurnData], scored: list[str], history: list[tuple[str, str]]
) -> list[Group]:
    """Eval runs: each case repeat's turns that did not error, in order. Traffic: each
    scored turn, after the earlier turns of its session."""
    cases: dict[Any, list[TurnData]] = {}
    earlier: dict[str, list[TurnData]] = {}
    for target, before_id in history:
        earlier.setdefault(target, []).append(turns[before_id])
    groups = []
    for turn_id in scored:
        turn = turns[turn_id]
        if turn.is_error:
            continue  # an errored turn is an error, never judged
        if turn.run_id is not None:
            cases.setdefault(turn.group, []).append(turn)
            continue
        before = sorted(earlier.get(turn_id, []), key=lambda t: t.start_ns)
        groups.append(
            Group([*(b for b in before if not b.is_error), turn], [turn], turn.sample_key)
        )
    for members in cases.values():
        members.sort(key=lambda t: t.turn_index or 0)
        groups.append(Group(members, list(members), min(t.sample_key for t in members)))
    return sorted(groups, key=lambda g: g.sample_key)


def run_coroutine(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run to completion, also from inside a running event loop (on a thread of its own)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(coroutine)
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=target, name="tracegrade-judges")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]
