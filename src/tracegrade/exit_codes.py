"""Exit codes of the `tracegrade` command: part of its API, documented in the README."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    """Everything passed (or the command did what it was asked)."""
    GATE_FAILED = 1
    """The gate failed: a case under its threshold, a `diff` regression, a `lint-tools` error."""
    USAGE_ERROR = 2
    """Bad options or bad input: a malformed eval set, a missing file, a locked database."""
    ERRORS_OVER_LIMIT = 3
    """More turns errored (agent, model or tool crashed) than `max_error_rate` allows."""
    INTERRUPTED = 130
    """Stopped by Ctrl-C."""
