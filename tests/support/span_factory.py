"""Plain SDK spans with deterministic ids and clock, shaped like ADK's, for ingest tests."""

from __future__ import annotations

import itertools
import random

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator


class SequentialIds(IdGenerator):
    def __init__(self, seed: int = 1) -> None:
        self._span = itertools.count(seed)
        self._trace = itertools.count(seed)

    def generate_span_id(self) -> int:
        return next(self._span)

    def generate_trace_id(self) -> int:
        # Spread the low 64 bits, which trace-id ratio sampling decides on.
        n = next(self._trace)
        return n << 64 | (n * 0x9E3779B97F4A7C15) % 2**64


class SeededRandomIds(IdGenerator):
    """Random ids, as the SDK makes them, but the same for the same seed."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def generate_span_id(self) -> int:
        return self._rng.getrandbits(64) or 1

    def generate_trace_id(self) -> int:
        return self._rng.getrandbits(128) or 1


def adk_like_spans(
    turns: int, seed: int = 1, random_ids: bool = False, resource: dict[str, str] | None = None
) -> list[ReadableSpan]:
    """`turns` traces of workflow > agent > (model, tool, model), ADK v2 attribute names;
    ids counted up from the seed, or random as in real traffic; `resource`: the process's
    resource attributes (service.name shop when not given)."""
    memory = InMemorySpanExporter()
    ids = SeededRandomIds(seed) if random_ids else SequentialIds(seed * 10_000)
    attributes = resource or {"service.name": "shop"}
    provider = TracerProvider(resource=Resource.create(attributes), id_generator=ids)
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("gcp.vertex.agent", "2.13.0")
    clock = itertools.count(1_767_225_600_000_000_000 + seed * 10**12, 1_000_000)
    rng = random.Random(seed)
    for turn in range(turns):
        session = {"gen_ai.conversation.id": f"s-{turn % 7}"}
        with tracer.start_as_current_span(
            "invoke_workflow shop",
            start_time=next(clock),
            end_on_exit=False,
            attributes={"gen_ai.operation.name": "invoke_workflow", **session},
        ) as root:
            with tracer.start_as_current_span(
                "invoke_agent shop",
                start_time=next(clock),
                end_on_exit=False,
                attributes={
                    "gen_ai.operation.name": "invoke_agent",
                    "gen_ai.agent.name": "shop",
                    **session,
                },
            ) as agent:
                for call in range(2):
                    span = tracer.start_span(
                        "generate_content m",
                        start_time=next(clock),
                        attributes={
                            "gen_ai.operation.name": "generate_content",
                            "gen_ai.request.model": "m",
                            "gcp.vertex.agent.invocation_id": f"e-{turn}",
                            "gen_ai.usage.input_tokens": 100 + call,
                            "gen_ai.response.finish_reasons": ("stop",),
                            **session,
                        },
                    )
                    span.end(end_time=next(clock))
                    if call == 0:
                        tool = tracer.start_span(
                            "execute_tool find",
                            start_time=next(clock),
                            attributes={
                                "gen_ai.operation.name": "execute_tool",
                                "gen_ai.tool.name": "find",
                                "gen_ai.tool.call.arguments": f'{{"q": {rng.random()}}}',
                                "gen_ai.tool.call.id": f"c-{turn}",
                            },
                        )
                        tool.end(end_time=next(clock))
                agent.end(end_time=next(clock))
            root.end(end_time=next(clock))
    provider.shutdown()
    return list(memory.get_finished_spans())


def session_spans(turn_starts: list[int], seed: int = 1) -> list[ReadableSpan]:
    """One trace: a session span (no agent's) begun with the first turn and ended a minute
    after the last, holding one ADK turn (agent > model call, 1,000 prompt tokens) starting
    at each of `turn_starts` (epoch ns), each a second long."""
    memory = InMemorySpanExporter()
    provider = TracerProvider(
        resource=Resource.create({"service.name": "shop"}), id_generator=SequentialIds(seed)
    )
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("gcp.vertex.agent", "2.13.0")
    second = 10**9
    with tracer.start_as_current_span(
        "session", start_time=turn_starts[0], end_on_exit=False
    ) as session:
        for turn, start in enumerate(turn_starts):
            with tracer.start_as_current_span(
                "invoke_agent shop",
                start_time=start,
                end_on_exit=False,
                attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "shop"},
            ) as agent:
                call = tracer.start_span(
                    "generate_content m",
                    start_time=start + second // 10,
                    attributes={
                        "gen_ai.operation.name": "generate_content",
                        "gen_ai.request.model": "m",
                        "gcp.vertex.agent.invocation_id": f"e-{seed}-{turn}",
                        "gen_ai.usage.input_tokens": 1000,
                        "gen_ai.response.finish_reasons": ("stop",),
                    },
                )
                call.end(end_time=start + second // 2)
                agent.end(end_time=start + second)
        session.end(end_time=turn_starts[-1] + 60 * second)
    provider.shutdown()
    return list(memory.get_finished_spans())
