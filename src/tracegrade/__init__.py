"""tracegrade: grade LLM agents from their OpenTelemetry traces.

`tracegrade.eval(...)`, `tracegrade.score(...)` and `tracegrade.read_report(...)` are the
Python API (docs/python-api.md); the CLI and the pytest plugin call the same.

The names below load on first use, so importing tracegrade (a pytest plugin, the CLI
starting up) does not pay for DuckDB and the OTel SDK until they are needed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracegrade._lazy import lazy_attributes

if TYPE_CHECKING:
    from tracegrade._version import __version__
    from tracegrade.capture import BlockingSpanProcessor, Capture, DuckDBSpanExporter, configure
    from tracegrade.errors import TracegradeError
    from tracegrade.workspace import (
        EvalRequest,
        EvalResult,
        JudgeSettings,
        ScoreRequest,
        ScoreResult,
        Store,
        eval,
        load_criteria,
        read_report,
        score,
    )

_LAZY = {
    "__version__": "tracegrade._version",
    "BlockingSpanProcessor": "tracegrade.capture",
    "Capture": "tracegrade.capture",
    "DuckDBSpanExporter": "tracegrade.capture",
    "configure": "tracegrade.capture",
    "configure_otlp": "tracegrade.capture",
    "TracegradeError": "tracegrade.errors",
    # The Python API (the application layer): run an eval set, score, read a report.
    "EvalRequest": "tracegrade.workspace",
    "EvalResult": "tracegrade.workspace",
    "JudgeSettings": "tracegrade.workspace",
    "ScoreRequest": "tracegrade.workspace",
    "ScoreResult": "tracegrade.workspace",
    "Store": "tracegrade.workspace",
    "eval": "tracegrade.workspace",
    "load_criteria": "tracegrade.workspace",
    "read_report": "tracegrade.workspace",
    "score": "tracegrade.workspace",
}

__all__ = [
    "BlockingSpanProcessor",
    "Capture",
    "DuckDBSpanExporter",
    "EvalRequest",
    "EvalResult",
    "JudgeSettings",
    "ScoreRequest",
    "ScoreResult",
    "Store",
    "TracegradeError",
    "__version__",
    "configure",
    "configure_otlp",
    "eval",
    "load_criteria",
    "read_report",
    "score",
]


__getattr__ = lazy_attributes(__name__, _LAZY)
