"""Replaying ADK eval sets through the real agent, every turn traced.

The names below load on first use: scoring and the report import `harness.record` (the
attribute names a run's spans carry), and importing this package must not make them pay
for the agent framework that `agents`, `replay` and `run` import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
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

_LAZY = {
    "agent_source": "tracegrade.harness.agents",
    "load_agent": "tracegrade.harness.agents",
    "CaseOutcome": "tracegrade.harness.replay",
    "TurnOutcome": "tracegrade.harness.replay",
    "RunInterrupted": "tracegrade.harness.run",
    "RunOptions": "tracegrade.harness.run",
    "RunPlan": "tracegrade.harness.run",
    "RunResult": "tracegrade.harness.run",
    "execute": "tracegrade.harness.run",
    "new_run_id": "tracegrade.harness.run",
    "plan_run": "tracegrade.harness.run",
    "run_eval": "tracegrade.harness.run",
}

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


__getattr__ = lazy_attributes(__name__, _LAZY)
