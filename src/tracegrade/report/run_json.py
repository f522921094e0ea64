"""`to_json`: the JSON report, what people diff when the gate fails."""

from __future__ import annotations

from tracegrade.report.models import RunReport


def to_json(report: RunReport) -> str:
    """Every case, repeat and turn with its tool calls, texts, scores, latency, tokens, cost,
    models and errors. Keys keep the models' field order and lists are sorted, so the same
    data always gives the same text."""
    return report.model_dump_json(indent=2) + "\n"
