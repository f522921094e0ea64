"""What ADK's user simulator did in a run's conversation scenarios, apart from the agent.

`simulator_usage` reads the `simulator_calls` view: how many conversations it played and
how each ended, its model calls, tokens and time (never counted as the agent's).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from tracegrade.report.values import as_float, as_int, count, plural
from tracegrade.store.reader import Reader, records

_USAGE = """
WITH ends AS (
    SELECT arg_max(status, turn_index) AS ending
    FROM simulator_calls WHERE run_id = ?
    GROUP BY eval_set_id, case_id, repeat
)
SELECT
    (SELECT count(*) FROM ends) AS conversations,
    (SELECT count(*) FILTER (ending = 'stop_signal') FROM ends) AS stopped,
    (SELECT count(*) FILTER (ending = 'turn_limit') FROM ends) AS turn_limit,
    (SELECT count(*) FILTER (ending = 'error') FROM ends) AS errors,
    sum(llm_calls) AS calls, sum(input_tokens) AS input_tokens,
    sum(output_tokens) AS output_tokens, sum(latency_ms) AS latency_ms
FROM simulator_calls WHERE run_id = ?
"""


class SimulatorUsage(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    conversations: int = Field(description="case repeats the simulated user played")
    stopped: int = Field(description="of those, ended by its stop signal (goal reached)")
    turn_limit: int = Field(description="ended by max_allowed_invocations")
    errors: int = Field(description="ended because the simulator failed")
    calls: int = Field(description="its model calls")
    input_tokens: int | None
    output_tokens: int | None
    latency_ms: float | None = Field(description="its total time")


def simulator_usage(reader: Reader, run_id: str) -> SimulatorUsage | None:
    """None when the run played no conversation scenario."""
    (row,) = records(reader, _USAGE, [run_id, run_id])
    if not row["conversations"]:
        return None
    return SimulatorUsage(
        **{k: int(row[k]) for k in ("conversations", "stopped", "turn_limit", "errors")},
        calls=int(row["calls"] or 0),
        input_tokens=as_int(row["input_tokens"]),
        output_tokens=as_int(row["output_tokens"]),
        latency_ms=as_float(row["latency_ms"]),
    )


def simulator_lines(usage: SimulatorUsage | None) -> list[str]:
    """The simulated user's line for a summary (nothing without scenarios)."""
    if usage is None:
        return []
    tokens = None
    if usage.input_tokens is not None or usage.output_tokens is not None:
        tokens = (usage.input_tokens or 0) + (usage.output_tokens or 0)
    return [
        f"Simulated user: {plural(usage.conversations, 'conversation')} "
        f"({usage.stopped} goal reached, {usage.turn_limit} turn limit, {usage.errors} failed) · "
        f"{plural(usage.calls, 'call')} · tokens {count(tokens)}"
    ]
