"""The projection to 100M turns a day from the measured Spark runs.

Per-partition cost: a Spark task's run time is fitted as `fixed + per_span * spans` over the
tasks of the day's run (tens of thousands of spans each) and of the handful-of-turns run
(tens of spans each), by least squares. The same from CPU seconds: the cluster's and the
driver's CPU over the day's run per span, and over the tiny run per task. Projected:
core-seconds a day = partitions * fixed + spans * per_span, and the wall time on N workers
of one core each (the job's driver-side time, measured, added once).
"""

from __future__ import annotations

from typing import Any

TURNS_PER_DAY = 100_000_000


def fit(tasks: list[dict[str, float]]) -> tuple[float, float]:
    """(fixed seconds, seconds per span) of the tasks' run times, least squares."""
    n = len(tasks)
    xs, ys = [t["spans"] for t in tasks], [t["run_s"] for t in tasks]
    mean_x, mean_y = sum(xs) / n, sum(ys) / n
    var = sum((x - mean_x) ** 2 for x in xs)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / var
    return mean_y - slope * mean_x, slope


def project(
    fixed_s: float,
    per_span_s: float,
    spans_per_turn: float,
    *,
    spans_per_task: int = 200_000,
    workers: tuple[int, ...] = (1, 8, 32, 128),
    sample: float = 1.0,
) -> dict[str, Any]:
    spans = TURNS_PER_DAY * sample * spans_per_turn
    tasks = max(1, round(spans / spans_per_task))
    core_s = tasks * fixed_s + spans * per_span_s
    return {
        "sample": sample,
        "spans_per_day": round(spans),
        "tasks": tasks,
        "core_hours_per_day": round(core_s / 3600, 2),
        "hours_on_workers": {n: round(core_s / n / 3600, 2) for n in workers},
    }


def project_cpu(
    read_s: float,
    scored_s: float,
    spans_per_turn: float,
    *,
    workers: tuple[int, ...] = (1, 8, 32, 128),
    sample: float = 1.0,
) -> dict[str, Any]:
    """By CPU: every span of the day is read (the sample is decided after reading), the
    sampled ones are scored; `read_s` holds the job's fixed part too (an upper bound)."""
    spans = TURNS_PER_DAY * spans_per_turn
    core_s = spans * read_s + spans * sample * scored_s
    return {
        "sample": sample,
        "spans_per_day": round(spans),
        "core_hours_per_day": round(core_s / 3600, 2),
        "hours_on_workers": {n: round(core_s / n / 3600, 2) for n in workers},
    }
