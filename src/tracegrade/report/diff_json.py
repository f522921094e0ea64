"""`diff_to_json`: a run diff as JSON (`tracegrade diff --json`), the same model the terminal,
Markdown and pages render: each case's category, reason and measures, and the totals."""

from __future__ import annotations

from tracegrade.report.diff.build import RunDiff


def diff_to_json(diff: RunDiff) -> str:
    return diff.model_dump_json(indent=2) + "\n"
