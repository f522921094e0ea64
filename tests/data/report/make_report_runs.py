#!/usr/bin/env python3
"""Generate report_runs.otlp.jsonl: two eval runs, for the report tests and golden files.

Both runs replay tests/data/evalsets/harness/shop.evalset.json and extras.evalset.json
(this folder) twice (repeats=2, one case at a time) through the real google-adk agents in
shop_agents.py, whose models are scripted (no API key, no network), via
`tracegrade.harness.run_eval`; every span is captured by the OTel SDK's
`InMemorySpanExporter` and written as OTLP/JSON lines, one ExportTraceServiceRequest per
trace, as the Collector's `file` exporter writes them.

    20260101T000000-base  base_agent: passing, failing, flaky and errored cases
    20260101T000500-next  next_agent: a regression, a fix, a changed trajectory, more tokens

Everything that would change from one generation to the next is fixed:
  * span and trace ids: a sequential id generator (../traces/otlp_json.py);
  * times: the SDK's clock is replaced by one that advances 25 ms each time it is read,
    so a span's duration counts the spans that started and ended inside it;
  * ADK's random ids (invocation, event, tool call) and the harness's session ids: uuid4
    counts up, and ADK's ids are then replaced by placeholders (../traces/otlp_json.py);
  * the git commit recorded with each run, and repository paths.
The tool definitions and system instructions ADK puts on every model span are left out:
nothing in tracegrade reads them, and they made up two thirds of the file.

Usage, from the repository root (the golden files follow the fixture: update them after):
    python tests/data/report/make_report_runs.py
    pytest tests/report --update-golden
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import sys
import uuid
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
FIXTURE = HERE / "report_runs.otlp.jsonl"
EVAL_SETS = [
    "tests/data/evalsets/harness/shop.evalset.json",
    "tests/data/report/extras.evalset.json",
]
RUNS = {
    "20260101T000000-base": "tests.data.report.shop_agents:base_agent",
    "20260101T000500-next": "tests.data.report.shop_agents:next_agent",
}
GIT_COMMIT = "0123456789abcdef0123456789abcdef01234567"
TICK_NS = 25_000_000
RUN_GAP_NS = 300_000_000_000  # the second run starts five minutes after the first
# Repeated on every model call, read by no view or scorer: two thirds of the file.
BULKY = frozenset({"gen_ai.tool.definitions", "gen_ai.system_instructions"})

sys.path.insert(0, str(ROOT))  # the repository: tests.data.traces.otlp_json, the agents
for key in [k for k in os.environ if k.startswith(("OTEL_", "ADK_", "GOOGLE_"))]:
    del os.environ[key]  # ADK's defaults: schema v2, content captured only as the harness asks

_uuids = itertools.count(1)
uuid.uuid4 = lambda: uuid.UUID(int=next(_uuids), version=4)  # ADK and the harness read it late


class FakeClock:
    """The SDK's `time_ns`: advances TICK_NS each time it is read."""

    def __init__(self, start_ns: int) -> None:
        self.now = start_ns

    def __call__(self) -> int:
        self.now += TICK_NS
        return self.now


def main() -> None:
    from opentelemetry import trace
    from opentelemetry.sdk import trace as sdk_trace
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from tests.data.traces.otlp_json import (
        EPOCH_NS,
        Placeholders,
        SequentialIds,
        group_by_trace,
        to_otlp_json,
        trim_stacktraces,
        write_jsonl,
    )
    from tracegrade.harness import RunOptions, run
    from tracegrade.harness.run import run_eval

    logging.getLogger("google_adk").setLevel(logging.CRITICAL)  # the crashing cases log
    clock = FakeClock(EPOCH_NS - TICK_NS)
    sdk_trace.time_ns = clock  # type: ignore[attr-defined]
    run._git_commit = lambda: GIT_COMMIT
    provider = sdk_trace.TracerProvider(
        resource=Resource.create({"service.name": "shop_app", "service.instance.id": "fixture-1"}),
        id_generator=SequentialIds("report_runs"),
    )
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    criteria = json.loads((HERE / "test_config.json").read_text())
    for number, (run_id, agent) in enumerate(RUNS.items()):
        clock.now = EPOCH_NS - TICK_NS + number * RUN_GAP_NS
        options = RunOptions(eval_sets=EVAL_SETS, agent=agent, repeats=2, criteria=criteria)
        run_eval(options, run_id=run_id)
    provider.force_flush()
    spans = exporter.get_finished_spans()
    requests = [to_otlp_json(group) for group in group_by_trace(spans)]
    text = Placeholders().apply(json.dumps(requests))
    text = text.replace(str(Path(sys.prefix)), "<venv>").replace(str(ROOT) + "/", "")
    requests = json.loads(text)
    trim_stacktraces(requests)
    _drop_attributes(requests, BULKY)
    write_jsonl(FIXTURE, requests)
    print(f"{FIXTURE.name}: {len(spans)} spans, {len(requests)} traces")


def _drop_attributes(requests: list[dict[str, Any]], keys: frozenset[str]) -> None:
    for request in requests:
        for resource_spans in request["resourceSpans"]:
            for scope_spans in resource_spans["scopeSpans"]:
                for span in scope_spans["spans"]:
                    span["attributes"] = [a for a in span["attributes"] if a["key"] not in keys]


if __name__ == "__main__":
    main()
