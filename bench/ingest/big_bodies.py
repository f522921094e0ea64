"""Memory under big bodies: six senders of 16 MiB OTLP/HTTP requests into `tracegrade serve`.

    python bench/ingest/big_bodies.py [--senders 6] [--body-mb 16] [--bodies 48]
    python bench/ingest/big_bodies.py --tracegrade OTHER/.venv/bin/tracegrade   # another build

Each body holds 256 spans carrying a 64 KiB attribute each (content capture of long
conversations), sent uncompressed, retried on 429/503 after Retry-After as the OTLP
exporters do. Prints the server's peak RSS (VmHWM), its RSS sampled every 100 ms while
the flood runs, the answers, spans lost, and the machine's load.
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from load import send_all
from targets import memory_kib, start_tracegrade

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository: its tests package

from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from tests.support.otlp import otlp_request
from tests.support.span_factory import adk_like_spans

WORDS = ["the", "agent", "called", "a", "tool", "with", "the", "user's", "question", "and",
         "got", "back", "some", "rows"]  # fmt: skip


def build_bodies(
    count: int, body_mb: int, per_body: int, seed: int = 7, compressible: bool = False
) -> list[bytes]:
    """`count` bodies of about `body_mb` MiB of `per_body` distinct spans each, their size
    made up by an attribute (none when the spans alone fill the body): random hex, or text
    of words that gzip shrinks about 4 times (`compressible`)."""
    rng = random.Random(seed)

    def text(size: int) -> str:
        if not compressible:
            return rng.randbytes(size // 2).hex()
        return " ".join(rng.choice(WORDS) for _ in range(size // 5))[:size]

    spans = adk_like_spans(-(-count * per_body // 5), seed=seed, random_ids=True)
    bodies = []
    for index in range(count):
        request = otlp_request(spans[index * per_body : (index + 1) * per_body])
        padding = (body_mb * 2**20 - request.ByteSize()) // per_body
        if padding > 64:
            for scope in (s for rs in request.resource_spans for s in rs.scope_spans):
                for span in scope.spans:
                    value = AnyValue(string_value=text(padding))
                    span.attributes.append(KeyValue(key="gen_ai.content", value=value))
        bodies.append(request.SerializeToString())
    return bodies


def load() -> str:
    return Path("/proc/loadavg").read_text().split(" ", 3)[:3].__str__()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--senders", type=int, default=6)
    parser.add_argument("--body-mb", type=int, default=16)
    parser.add_argument("--bodies", type=int, default=48)
    parser.add_argument(
        "--spans-per-body", type=int, default=256,
        help="256: spans of 64 KiB (content capture); 60000: small spans filling the body",
    )  # fmt: skip
    parser.add_argument(
        "--tracegrade", default=shutil.which("tracegrade", path=str(Path(sys.executable).parent))
    )
    parser.add_argument(
        "--gzip", action="store_true",
        help="gzip the bodies (of compressible text): --body-mb is then the size inflated",
    )  # fmt: skip
    parser.add_argument("--serve-args", default="", help="extra options for tracegrade serve")
    args = parser.parse_args()

    print(f"building {args.bodies} bodies of ~{args.body_mb} MiB ...", flush=True)
    bodies = build_bodies(args.bodies, args.body_mb, args.spans_per_body, compressible=args.gzip)
    per_body = [args.spans_per_body] * len(bodies)
    size = f"{sum(map(len, bodies)) / len(bodies) / 2**20:.1f} MiB"
    if args.gzip:
        bodies = [gzip.compress(body, 1) for body in bodies]
        size += f" ({sum(map(len, bodies)) / len(bodies) / 2**20:.1f} MiB gzipped)"
    print(f"{size} each; load before {load()}")
    with tempfile.TemporaryDirectory(prefix="bench-big-") as workdir:
        target = start_tracegrade(Path(workdir), args.tracegrade, extra=args.serve_args.split())
        pid = target.process.pid
        idle = memory_kib(pid, "VmRSS") / 1024
        samples: list[float] = []
        stop = threading.Event()

        def sample() -> None:
            while not stop.wait(0.1):
                samples.append(memory_kib(pid, "VmRSS") / 1024)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        started = time.monotonic()
        report = send_all(
            target.url, bodies, per_body, args.senders, gzip_bodies=args.gzip, deadline_s=900
        )
        stored = target.count()
        seconds = time.monotonic() - started
        stop.set()
        peak = memory_kib(pid, "VmHWM") / 1024
        target.stop()
    expected = sum(per_body)
    statuses = dict(sorted(report.status_counts.items()))
    print(
        f"{args.tracegrade}: {args.senders} senders x {size} bodies "
        f"({args.spans_per_body} spans each), "
        f"{expected} spans in {seconds:.1f} s\n"
        f"  RSS idle {idle:.0f} MB, peak {peak:.0f} MB (VmHWM), sampled max {max(samples):.0f} MB\n"
        f"  answers {statuses}; lost {expected - stored}; load after {load()}"
    )


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
