"""Replaying ADK eval sets through the real agent, every turn traced."""

from tracegrade.harness.agents import agent_source, load_agent
from tracegrade.harness.replay import CaseOutcome, TurnOutcome
from tracegrade.harness.run import (
    RunInterrupted,
    RunOptions,
    RunPlan,
    RunResult,
    execute,
    new_run_id,
    plan_run,
    run_eval,
)

__all__ = [
    "CaseOutcome",
    "RunInterrupted",
    "RunOptions",
    "RunPlan",
    "RunResult",
    "TurnOutcome",
    "agent_source",
    "execute",
    "load_agent",
    "new_run_id",
    "plan_run",
    "run_eval",
]
