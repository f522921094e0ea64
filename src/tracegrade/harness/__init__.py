"""Replaying ADK eval sets through the real agent, every turn traced."""

from tracegrade.harness.agents import load_agent
from tracegrade.harness.replay import CaseOutcome, TurnOutcome
from tracegrade.harness.run import RunOptions, RunResult, new_run_id, run_eval

__all__ = [
    "CaseOutcome",
    "RunOptions",
    "RunResult",
    "TurnOutcome",
    "load_agent",
    "new_run_id",
    "run_eval",
]
