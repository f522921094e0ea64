"""`run_eval`: replay eval sets through an agent, every turn traced.

Cases (times repeats) run concurrently up to `parallel`, each in a fresh runner and
session, so the result does not depend on case order or concurrency.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import subprocess
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

from google.adk.agents.base_agent import BaseAgent
from google.adk.evaluation.simulation.llm_backed_user_simulator import (
    LlmBackedUserSimulatorConfig,
)
from pydantic import BaseModel, ConfigDict, Field

from tracegrade.errors import EvalSetError
from tracegrade.evalset import Case, LoadedEvalSet, load_eval_sets
from tracegrade.harness import record
from tracegrade.harness.agents import load_agent, model_names
from tracegrade.harness.replay import RUN_CONFIG, CaseOutcome, replay_case
from tracegrade.harness.scenario import simulate_case
from tracegrade.harness.simulator import build_simulator, simulator_config
from tracegrade.harness.tools import agent_tool_definitions
from tracegrade.harness.warmup import cool_down, warm_up


class RunOptions(BaseModel):
    """What `tracegrade run` replays and how."""

    model_config = ConfigDict(frozen=True)

    eval_sets: list[str] = Field(
        description="eval-set files or folders; `file.json:case_a,case_b` selects cases"
    )
    agent: str = Field(description="`package.module:attr` or an agent folder holding agent.py")
    repeats: int = Field(default=1, ge=1)
    parallel: int = Field(default=1, ge=1)
    turn_timeout_s: float | None = Field(default=600.0, gt=0)
    criteria: dict[str, Any] = Field(
        default_factory=dict,
        description="the criteria document, recorded with the run; its "
        "`user_simulator_config` plays the scenario cases",
    )
    ignore_unknown_keys: bool = Field(
        default=False, description="load eval sets with keys ADK refuses, without those keys"
    )
    tags: list[str] = Field(
        default_factory=list,
        description="names recorded with the run (`--tag`), for `--baseline TAG` to find it",
    )


@dataclass
class RunResult:
    run_id: str
    eval_sets: list[LoadedEvalSet]
    outcomes: list[CaseOutcome]
    not_replayable: list[tuple[Case, str]] = field(default_factory=list)

    @property
    def errors(self) -> list[CaseOutcome]:
        return [o for o in self.outcomes if o.error]


Progress = Callable[[CaseOutcome], None]


def new_run_id() -> str:
    now = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S")
    return f"{now}-{uuid.uuid4().hex[:6]}"


@dataclass
class RunPlan:
    """What a run will replay, checked before any agent runs."""

    run_id: str
    options: RunOptions
    eval_sets: list[LoadedEvalSet]
    agent: BaseAgent
    cases: list[Case]
    not_replayable: list[tuple[Case, str]]
    simulator: LlmBackedUserSimulatorConfig | None = None
    """ADK's user simulator settings, when a case is a conversation scenario."""

    @property
    def total(self) -> int:
        """Case repeats to replay."""
        return len(self.cases) * self.options.repeats


def plan_run(options: RunOptions, run_id: str | None = None) -> RunPlan:
    """Load the eval sets and the agent; fail on bad input before anything runs."""
    eval_sets = load_eval_sets(options.eval_sets, options.ignore_unknown_keys)
    cases = [case for s in eval_sets for case in s.cases]
    skipped = [(c, c.reason_not_replayable) for c in cases if c.reason_not_replayable is not None]
    replayable = [c for c in cases if c.replayable]
    if not replayable:
        # Nothing is recorded for a run that cannot replay anything.
        given = ", ".join(options.eval_sets)
        raise EvalSetError(
            f"nothing to replay: {given} holds no case"
            if not cases
            else f"nothing to replay: the one case in {given} cannot be replayed"
            if len(cases) == 1
            else f"nothing to replay: none of the {len(cases)} cases in {given} can be replayed"
        )
    # The agent after the eval sets (importing it takes seconds), before the simulator: its
    # module may register the simulated user's model.
    agent = load_agent(options.agent)
    simulator = None
    if any(c.scenario is not None for c in replayable):
        simulator = simulator_config(options.criteria)
        for case in replayable:  # an unknown persona or model fails here, before any run
            if case.scenario is not None:
                build_simulator(simulator, case, repeat=0)
    return RunPlan(
        run_id or new_run_id(), options, eval_sets, agent, replayable, skipped, simulator
    )


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped the run; what it finished (and the turn it stopped in) is recorded."""


def execute(plan: RunPlan, progress: Progress | None = None) -> RunResult:
    """Replay every planned case `repeats` times; spans go to the global tracer provider."""
    record.record_run(
        _run_record(plan.run_id, plan.options, plan.eval_sets, plan.agent), plan.cases
    )
    finished: list[CaseOutcome] = []

    def counted(outcome: CaseOutcome) -> None:
        finished.append(outcome)
        if progress:
            progress(outcome)

    try:
        outcomes = asyncio.run(_replay_all(plan, counted))
    except KeyboardInterrupt:
        raise RunInterrupted(
            f"run {plan.run_id} stopped after {len(finished)} of {plan.total} case repeats; "
            f"`tracegrade score --run {plan.run_id}` scores what ran (as incomplete)"
        ) from None
    return RunResult(plan.run_id, plan.eval_sets, outcomes, plan.not_replayable)


def run_eval(
    options: RunOptions, progress: Progress | None = None, run_id: str | None = None
) -> RunResult:
    """`plan_run` then `execute`."""
    return execute(plan_run(options, run_id), progress)


async def _replay_all(plan: RunPlan, progress: Progress | None) -> list[CaseOutcome]:
    await warm_up(RUN_CONFIG)  # ADK's one-time start-up, out of the first case's latency
    try:
        return await _replay_cases(plan, progress)
    finally:
        cool_down()


async def _replay_cases(plan: RunPlan, progress: Progress | None) -> list[CaseOutcome]:
    limit = asyncio.Semaphore(plan.options.parallel)

    async def one(case: Case, repeat: int) -> CaseOutcome:
        async with limit:
            outcome = await _play(plan, case, repeat)
        if progress:
            progress(outcome)
        return outcome

    jobs = [one(case, repeat) for case in plan.cases for repeat in range(plan.options.repeats)]
    return list(await asyncio.gather(*jobs))


async def _play(plan: RunPlan, case: Case, repeat: int) -> CaseOutcome:
    """A scenario case with ADK's user simulator; any other replayed as written."""
    timeout = plan.options.turn_timeout_s
    if case.scenario is not None:
        # A plan made by hand may carry no settings: ADK's defaults then, as ADK injects them.
        simulator = plan.simulator or simulator_config({})
        return await simulate_case(plan.agent, case, plan.run_id, repeat, timeout, simulator)
    return await replay_case(plan.agent, case, plan.run_id, repeat, timeout)


def _run_record(
    run_id: str, options: RunOptions, eval_sets: list[LoadedEvalSet], agent: BaseAgent
) -> record.RunRecord:
    from tracegrade import __version__

    return record.RunRecord(
        run_id=run_id,
        agent=options.agent,
        eval_sets=eval_sets,
        models=model_names(agent),
        repeats=options.repeats,
        parallel=options.parallel,
        adk_version=version("google-adk"),
        tracegrade_version=__version__,
        git_commit=_git_commit(),
        criteria=options.criteria,
        tool_definitions=agent_tool_definitions(agent),
        tags=options.tags,
    )


def _git_commit() -> str | None:
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5, cwd=Path.cwd()
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None
