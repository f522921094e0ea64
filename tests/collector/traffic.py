"""Traces sent with the real OTel SDK (BatchSpanProcessor + OTLP/HTTP exporter), as an agent
would, and what tail sampling's probabilistic policy decides for them."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from fractions import Fraction

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Status, StatusCode

SPANS_PER_TRACE = 3


@dataclass
class Sent:
    """Every span sent, by trace id (hex), and the traces that had an ERROR span."""

    spans: dict[str, set[str]] = field(default_factory=dict)
    errors: set[str] = field(default_factory=set)

    def ids(self) -> set[tuple[str, str]]:
        return {(t, s) for t, spans in self.spans.items() for s in spans}


class Agent:
    """A tracer provider of its own (not the tests' global one) exporting to `endpoint`."""

    def __init__(self, endpoint: str) -> None:
        self.provider = TracerProvider(resource=Resource.create({"service.name": "collector-test"}))
        exporter = OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces", timeout=30)
        self.provider.add_span_processor(BatchSpanProcessor(exporter, schedule_delay_millis=200))
        self.tracer = self.provider.get_tracer("tests.collector")
        self.sent = Sent()

    def send(self, count: int, error_share: float, rng: random.Random) -> None:
        """`count` traces (one turn each): a root and two children, one failing in some."""
        for _ in range(count):
            failing = rng.random() < error_share
            with self.tracer.start_as_current_span("invoke_workflow") as root:
                with self.tracer.start_as_current_span("call_llm") as llm:
                    pass
                with self.tracer.start_as_current_span("execute_tool") as tool:
                    if failing:
                        tool.set_status(Status(StatusCode.ERROR, "tool failed"))
            trace_id = f"{root.get_span_context().trace_id:032x}"
            self.sent.spans[trace_id] = {
                f"{s.get_span_context().span_id:016x}" for s in (root, llm, tool)
            }
            if failing:
                self.sent.errors.add(trace_id)

    def close(self) -> None:
        assert self.provider.force_flush(60_000), "the SDK could not export every span"
        self.provider.shutdown()


# tailsamplingprocessor v0.161.0, internal/sampling/probabilistic.go: FNV-1a 64 of the salt and
# the 16 trace id bytes, kept when at most MaxUint64 x ratio (the policy sets no salt).
_SALT = b"default-hash-seed"
_FNV_OFFSET, _FNV_PRIME = 0xCBF29CE484222325, 0x100000001B3


def _fnv1a64(data: bytes) -> int:
    value = _FNV_OFFSET
    for byte in data:
        value = ((value ^ byte) * _FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
    return value


def probabilistic_keeps(trace_id: str, percentage: float) -> bool:
    threshold = int(Fraction(2**64 - 1) * Fraction(percentage / 100))
    return _fnv1a64(_SALT + bytes.fromhex(trace_id)) <= threshold
