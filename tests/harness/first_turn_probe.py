"""Run as a script in a fresh process: replays the shop eval set and prints, per turn, how
many modules were imported and how many full garbage collections ran while it was timed.

    python -m tests.harness.first_turn_probe DB
"""

from __future__ import annotations

import gc
import json
import sys

from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor

import tracegrade
from tests.support.paths import DATA
from tracegrade.harness import RunOptions, run_eval
from tracegrade.harness.record import TURN_SPAN


class TurnProbe(SpanProcessor):
    def __init__(self) -> None:
        self.started: dict[int, tuple[int, int]] = {}
        self.turns: list[dict[str, object]] = []

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        if span.name == TURN_SPAN and span.context:
            self.started[span.context.span_id] = (len(sys.modules), _full_collections())

    def on_end(self, span: ReadableSpan) -> None:
        if span.name == TURN_SPAN and span.context:
            modules, collections = self.started.pop(span.context.span_id)
            attributes = dict(span.attributes or {})
            self.turns.append({
                "case": attributes["tracegrade.case_id"],
                "imported": len(sys.modules) - modules,
                "full_collections": _full_collections() - collections,
            })  # fmt: skip


def _full_collections() -> int:
    return int(gc.get_stats()[2]["collections"])


def main(db: str) -> None:
    capture = tracegrade.configure(db)
    probe = TurnProbe()
    capture.provider.add_span_processor(probe)
    shop = DATA / "evalsets" / "harness" / "shop.evalset.json"
    run_eval(RunOptions(eval_sets=[str(shop)], agent="tests.harness.shop_agent.agent:root_agent"))
    capture.shutdown()
    print(json.dumps(probe.turns))


if __name__ == "__main__":
    main(sys.argv[1])
