"""What the judges of a scoring did, and why a judged turn failed, in words.

`judge_usage` reads `judge_usage` (one row per judged metric): answers used, from the cache
or new, failures, what the budget left unjudged, the judges' own tokens and cost (never the
agent's). `judged_texts` turns a judged metric's detail into the lines a failing turn shows:
the judge's rationale, per rubric, sentence, task or argument that failed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tracegrade.report.values import as_float, as_int, count, plural, usd
from tracegrade.store.reader import Reader, records

JUDGED_KEYS = ("votes", "rubrics", "sentences", "tasks", "arguments")
"""Detail keys of the shipped judged metrics (tg_judge_detail adds judge_error)."""


class JudgeUsage(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    metric: str
    judge_model: str
    judgements: int = Field(description="judge answers the scoring used")
    cached: int = Field(description="of those, reused from earlier scorings")
    calls: int = Field(description="model calls made")
    failed: int = Field(description="calls that failed after every retry")
    unjudged: int = Field(description="calls not made: the judge budget was spent")
    input_tokens: int | None
    output_tokens: int | None
    cost_usd: float | None = Field(description="the new calls' cost; null when unpriced")
    budget_usd: float | None


def judge_usage(reader: Reader, scoring_id: str) -> list[JudgeUsage]:
    rows = records(
        reader,
        "SELECT metric, judge_model, judgements, cached, calls, failed, unjudged, input_tokens, "
        "output_tokens, cost_usd, budget_usd FROM judge_usage WHERE scoring_id = ? "
        "ORDER BY metric",
        [scoring_id],
    )
    return [
        JudgeUsage(
            **{k: row[k] for k in ("metric", "judge_model")},
            **{k: int(row[k]) for k in ("judgements", "cached", "calls", "failed", "unjudged")},
            input_tokens=as_int(row["input_tokens"]),
            output_tokens=as_int(row["output_tokens"]),
            cost_usd=as_float(row["cost_usd"]),
            budget_usd=as_float(row["budget_usd"]),
        )
        for row in rows
    ]


def usage_lines(usages: Sequence[JudgeUsage], judge_errors: int = 0) -> list[str]:
    """The judges' line for a summary (nothing when nothing was judged)."""
    if not usages:
        return []
    calls = sum(u.calls for u in usages)
    cached = sum(u.cached for u in usages)
    tokens = [u.input_tokens + u.output_tokens for u in usages
              if u.input_tokens is not None and u.output_tokens is not None]  # fmt: skip
    costs = [u.cost_usd for u in usages if u.cost_usd is not None]
    line = (
        f"Judges: {plural(sum(u.judgements for u in usages), 'answer')} · "
        f"{plural(calls, 'new call')}, {count(cached)} from the cache · "
        f"tokens {count(sum(tokens) if tokens else None)} · "
        f"cost {usd(sum(costs) if costs else None)}"
    )
    lines = [line]
    failed = sum(u.failed for u in usages)
    if failed or judge_errors:
        lines.append(
            f"  {plural(failed, 'judge call')} failed after every retry; "
            f"{plural(judge_errors, 'judged turn')} not evaluated because of the judge"
        )
    unjudged = sum(u.unjudged for u in usages)
    if unjudged:
        budget = next((u.budget_usd for u in usages if u.budget_usd is not None), None)
        lines.append(
            f"  judge budget {usd(budget)} spent: {plural(unjudged, 'judge call')} not made, "
            "their turns left unjudged"
        )
    return lines


def is_judged(detail: dict[str, Any]) -> bool:
    return "judge_error" in detail or any(key in detail for key in JUDGED_KEYS)


def judged_texts(detail: dict[str, Any]) -> tuple[str, list[tuple[str, str]]]:
    """A failing judged turn: a one-line reason, and (label, text) lines of what failed."""
    lines: list[tuple[str, str]] = []
    for key, name in (("rubrics", "id"), ("tasks", "key"), ("arguments", "key")):
        for item in detail.get(key) or []:
            if item.get("score") is not None and item["score"] < 1:
                lines.append((f"✗ {item.get(name)}", str(item.get("rationale") or "")))
    for sentence in detail.get("sentences") or []:
        if str(sentence.get("label", "")).strip().lower() not in ("supported", "not_applicable"):
            why = f" — {sentence['rationale']}" if sentence.get("rationale") else ""
            lines.append((f"✗ {sentence.get('label')}", f'"{sentence.get("sentence")}"{why}'))
    reason = str(detail.get("rationale") or "") if not lines else ""
    return (f"judge: {reason}" if reason else ""), lines
