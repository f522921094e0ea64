"""Exit codes of the `tracegrade` command: part of its API, documented in docs/exit-codes.md."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    """Everything passed (or the command did what it was asked)."""
    GATE_FAILED = 1
    """The gate failed: a case under its threshold or over a budget, a `diff` (or `--baseline`)
    regression (a tolerance exceeded among them), a `lint-tools` error."""
    USAGE_ERROR = 2
    """Bad options or bad input: a malformed eval set, a missing file, a locked database, a
    `--baseline` that names no stored run or tag, or a report file that cannot be read
    (`run` finds it before its first case)."""
    ERRORS_OVER_LIMIT = 3
    """More turns errored (agent, model or tool crashed) than `max_error_rate` allows."""
    NOT_EVALUATED = 4
    """Nothing failed, but some case had no criterion evaluated (an unsupported metric,
    arguments not captured, no expectation); a line names each metric and why.
    `--allow-not-evaluated` (or `allow_not_evaluated` in the config) makes it 0."""
    INCOMPLETE = 5
    """The eval run is incomplete: it was interrupted, and some case repeats never ran, so
    it cannot pass however the rest scored."""
    NOTHING_SELECTED = 6
    """`score --since/--sample/--where` selected no stored traffic turn: nothing was scored
    (one line says which selection); or a `--rule NAME --window` of `diff` or `report` holds
    no turn the rule scored. Often normal on a quiet or small window."""
    INTERRUPTED = 130
    """Stopped by Ctrl-C."""
