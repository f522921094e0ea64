"""The load: ADK-shaped spans pre-encoded as OTLP/HTTP protobuf requests, and the senders.

Bodies are built before the clock starts, and each sender is a plain keep-alive
`http.client` connection in a thread of a separate process, so the sender costs the
2-core machine as little CPU as it can while the server is measured.
"""

from __future__ import annotations

import gzip
import http.client
import multiprocessing
import queue
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository: its tests package
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: adk_spans

SHAPES = ("adk", "small")
"""`adk`: bench/adk_spans.py, ADK 2.13's spans with content captured (~1.7 KB of OTLP and 15
attributes on a model call). `small`: tests/span_factory.py's, about half that size."""


def build_bodies(
    spans: int, batch: int, seed: int = 1, compress: bool = False, shape: str = "adk"
) -> list[bytes]:
    """`spans` distinct ADK-shaped spans as protobuf request bodies of `batch` spans each."""
    if shape == "adk":
        bodies = _adk_bodies(spans, batch, seed)
    else:
        bodies = _small_bodies(spans, batch, seed)
    return [gzip.compress(body, 1) for body in bodies] if compress else bodies


def _adk_bodies(spans: int, batch: int, seed: int) -> list[bytes]:
    """Through the OTel SDK and its OTLP encoder, as an ADK process sends them: random ids."""
    import random

    from adk_spans import SPANS_PER_TURN, emit_turns
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    random.seed(seed)  # the SDK's id generator draws from `random`
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    emit_turns(provider.get_tracer("gcp.vertex.agent", "2.13.0"), -(-spans // SPANS_PER_TURN))
    made = memory.get_finished_spans()[:spans]
    return [
        encode_spans(made[i : i + batch]).SerializeToString() for i in range(0, len(made), batch)
    ]


def _small_bodies(spans: int, batch: int, seed: int) -> list[bytes]:
    from tests.support.otlp import otlp_request
    from tests.support.span_factory import adk_like_spans

    # Random ids, as the SDK makes them: sequential ones would let DuckDB skip stored
    # row groups by their min/max when it checks for spans stored before.
    made = adk_like_spans(-(-spans // 5), seed=seed, random_ids=True)[:spans]
    return [
        otlp_request(made[i : i + batch]).SerializeToString() for i in range(0, len(made), batch)
    ]


@dataclass
class SendReport:
    seconds: float = 0.0
    started_at: float = 0.0
    """time.time() when the first request went out (the process takes a while to start)."""
    ok: int = 0
    spans_acked: int = 0
    status_counts: dict[int, int] = field(default_factory=dict)
    failed: int = 0
    """Requests given up on: a status other than 200/429/503, or retries ran out."""


def send_all(
    url: str,
    bodies: list[bytes],
    spans_per_body: list[int],
    senders: int,
    *,
    gzip_bodies: bool = False,
    honour_retry_after: bool = True,
    deadline_s: float = 600.0,
) -> SendReport:
    """Send every body in a separate process; retry 429/503 as the OTLP exporters do."""
    context = multiprocessing.get_context("spawn")
    results: multiprocessing.Queue[SendReport] = context.Queue()
    args = (url, bodies, spans_per_body, senders, gzip_bodies, honour_retry_after, deadline_s)
    process = context.Process(target=_sender_process, args=(*args, results))
    process.start()
    report = results.get()
    process.join()
    return report


def _sender_process(
    url: str,
    bodies: list[bytes],
    spans_per_body: list[int],
    senders: int,
    gzip_bodies: bool,
    honour_retry_after: bool,
    deadline_s: float,
    results: multiprocessing.Queue[SendReport],
) -> None:
    work: queue.SimpleQueue[int] = queue.SimpleQueue()
    for index in range(len(bodies)):
        work.put(index)
    report = SendReport()
    lock = threading.Lock()
    deadline = time.monotonic() + deadline_s
    report.started_at = time.time()
    started = time.perf_counter()
    threads = [
        threading.Thread(
            target=_sender,
            args=(
                url,
                bodies,
                spans_per_body,
                work,
                report,
                lock,
                gzip_bodies,
                honour_retry_after,
                deadline,
            ),
        )
        for _ in range(senders)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    report.seconds = time.perf_counter() - started
    results.put(report)


def _sender(
    url: str,
    bodies: list[bytes],
    spans_per_body: list[int],
    work: queue.SimpleQueue[int],
    report: SendReport,
    lock: threading.Lock,
    gzip_bodies: bool,
    honour_retry_after: bool,
    deadline: float,
) -> None:
    parts = urlsplit(url)
    headers = {"content-type": "application/x-protobuf"}
    if gzip_bodies:
        headers["content-encoding"] = "gzip"
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    while True:
        try:
            index = work.get_nowait()
        except queue.Empty:
            break
        while True:
            status, retry_after = _post(connection, parts.path, bodies[index], headers)
            with lock:
                report.status_counts[status] = report.status_counts.get(status, 0) + 1
            if status in (429, 502, 503, 504, 0) and time.monotonic() < deadline:
                time.sleep(retry_after if honour_retry_after else 0.01)
                continue
            with lock:
                if status == 200:
                    report.ok += 1
                    report.spans_acked += spans_per_body[index]
                else:
                    report.failed += 1
            break
    connection.close()


def _post(
    connection: http.client.HTTPConnection, path: str, body: bytes, headers: dict[str, str]
) -> tuple[int, float]:
    """Status and Retry-After seconds; status 0 when the connection failed (retried)."""
    try:
        connection.request("POST", path, body, headers)
        response = connection.getresponse()
        response.read()
    except (OSError, http.client.HTTPException):
        connection.close()
        return 0, 0.5
    retry_after = response.getheader("retry-after")
    return response.status, float(retry_after) if retry_after else 1.0
