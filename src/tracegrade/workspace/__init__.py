"""The application layer: what every front end (the CLI, the pytest plugin, `tracegrade
serve`, Spark) calls to run an eval set, score stored turns and read a report.

Requests and results are typed (`requests`, `results`); the criteria are parsed once
(`load_criteria`) and cross every seam as one `Criteria`; `Store` is the database, the
file or the serve holding it. `api` is the public surface, exported from `tracegrade`.

The names below load on first use: a read command importing `workspace.store` pays for
no scoring, harness or pydantic code.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tracegrade.workspace.api import eval, read_report, score
    from tracegrade.workspace.requests import (
        Criteria,
        EvalRequest,
        JudgeSettings,
        ScoreRequest,
        load_criteria,
    )
    from tracegrade.workspace.results import EvalResult, ScoreResult, SkippedCase
    from tracegrade.workspace.store import Store

_LAZY = {
    "eval": "tracegrade.workspace.api",
    "score": "tracegrade.workspace.api",
    "read_report": "tracegrade.workspace.api",
    "Criteria": "tracegrade.workspace.requests",
    "EvalRequest": "tracegrade.workspace.requests",
    "JudgeSettings": "tracegrade.workspace.requests",
    "ScoreRequest": "tracegrade.workspace.requests",
    "load_criteria": "tracegrade.workspace.requests",
    "EvalResult": "tracegrade.workspace.results",
    "ScoreResult": "tracegrade.workspace.results",
    "SkippedCase": "tracegrade.workspace.results",
    "Store": "tracegrade.workspace.store",
}

__all__ = [
    "Criteria",
    "EvalRequest",
    "EvalResult",
    "JudgeSettings",
    "ScoreRequest",
    "ScoreResult",
    "SkippedCase",
    "Store",
    "eval",
    "load_criteria",
    "read_report",
    "score",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
