"""`traffic_to_json`: a traffic scoring as JSON, to keep or compare over time."""

from __future__ import annotations

from tracegrade.report.traffic.build import TrafficReport


def traffic_to_json(report: TrafficReport) -> str:
    """The selection, the verdict, the rows overall, per agent and per model, and every
    metric against its budgets; keys in the models' field order."""
    return report.model_dump_json(indent=2) + "\n"
