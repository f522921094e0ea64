"""Under a flood the server pushes back (429 + Retry-After, gRPC UNAVAILABLE) and stays small."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub

from tests.support.otlp import otlp_request
from tests.support.span_factory import adk_like_spans

from .helpers import PROTOBUF, Server, ids_of, protobuf, start_server

SENDERS = 16
ROUNDS = 6
RSS_CAP_MB = 600


@pytest.fixture(scope="module")
def tight(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A queue of 1024 spans: two requests of 512 fill it."""
    server = start_server(tmp_path_factory.mktemp("overload"), "--max-queued-spans", "1024")
    yield server
    server.stop()


def memory_mb(pid: int, key: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    raise KeyError(key)


def test_a_flood_gets_429_with_retry_after_and_nothing_is_lost(tight: Server) -> None:
    spans = adk_like_spans(SENDERS * 103, seed=50)[: SENDERS * 512]
    bodies = [protobuf(spans[i * 512 : (i + 1) * 512]) for i in range(SENDERS)]
    statuses: Counter[int] = Counter()
    retry_after: set[str] = set()
    lock = threading.Lock()
    rss_before = memory_mb(tight.process.pid, "VmRSS")

    def flood(body: bytes) -> None:
        for _ in range(ROUNDS):
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                reply = tight.post("/v1/traces", body, PROTOBUF, timeout=30)
                with lock:
                    statuses[reply.status] += 1
                    if reply.status in (429, 503):
                        retry_after.add(reply.headers.get("retry-after", "missing"))
                if reply.status == 200:
                    break
                time.sleep(0.005)  # a sender that outruns the server: far below Retry-After

    threads = [threading.Thread(target=flood, args=(body,)) for body in bodies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    peak = memory_mb(tight.process.pid, "VmHWM")

    assert statuses[200] == SENDERS * ROUNDS, statuses
    assert statuses[429] > 0, f"no push-back at all: {statuses}"
    assert set(statuses) <= {200, 429}, statuses
    assert retry_after, "no Retry-After on a 429"
    assert all(value.isdigit() and int(value) >= 1 for value in retry_after), retry_after
    wanted = ids_of(spans)
    assert Counter(key for key in tight.ids() if key in wanted) == Counter(wanted)
    assert peak < RSS_CAP_MB, f"peak RSS {peak:.0f} MB (was {rss_before:.0f} MB before the flood)"


def test_grpc_overload_is_unavailable_with_retry_info(tight: Server) -> None:
    spans = adk_like_spans(103 * 8, seed=51)
    requests = [otlp_request(spans[i * 100 : (i + 1) * 100]) for i in range(8)]
    codes: Counter[grpc.StatusCode] = Counter()
    details: list[bytes] = []
    lock = threading.Lock()

    def send(index: int) -> None:
        with grpc.insecure_channel(tight.grpc_target) as channel:
            stub = TraceServiceStub(channel)  # type: ignore[no-untyped-call]
            for _ in range(10):
                try:
                    stub.Export(requests[index], timeout=30)
                    code = grpc.StatusCode.OK
                except grpc.RpcError as exc:
                    code = exc.code()
                    trailers = dict(exc.trailing_metadata() or ())
                    with lock:
                        details.append(trailers.get("grpc-status-details-bin", b""))
                with lock:
                    codes[code] += 1

    # Keep the queue full from HTTP meanwhile, so gRPC requests meet a full queue.
    big = protobuf(adk_like_spans(205, seed=52)[:1024])
    stop = threading.Event()

    def fill() -> None:
        while not stop.is_set():
            tight.post("/v1/traces", big, PROTOBUF)

    fillers = [threading.Thread(target=fill) for _ in range(4)]
    senders = [threading.Thread(target=send, args=(i,)) for i in range(8)]
    for thread in [*fillers, *senders]:
        thread.start()
    for thread in senders:
        thread.join(60)
    stop.set()
    for thread in fillers:
        thread.join(60)
    assert set(codes) <= {grpc.StatusCode.OK, grpc.StatusCode.UNAVAILABLE}, codes
    assert codes[grpc.StatusCode.UNAVAILABLE] > 0, codes
    assert all(b"RetryInfo" in detail for detail in details)
