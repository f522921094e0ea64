"""Online scoring benchmark: does `serve --rules` keep up with 2,000 turns a minute, and
what does it cost ingest?

    /work/venv/bin/python bench/online/run.py                  # 2 min paced, 60k-span floods
    /work/venv/bin/python bench/online/run.py --minutes 1 --flood-spans 30000

Three fresh servers, each on its own database, fed ADK-shaped spans with content
(bench/adk_spans.py, 9 spans a turn, encoded by the OTel SDK's OTLP encoder before any clock
starts), one rule scoring every turn by the default reference-free metrics
(`tool_error_rate` gating, every other reference-free metric informational, as `score` runs
them):

1. paced: `--turns-per-minute` (2,000) for `--minutes`, one request a second (each turn's
   spans in one request, as a BatchSpanProcessor sends them), the rule's quiet period the
   default 10 s. Printed: the lag from each turn's completion (its last span stored) to its
   scores committed, p50/p95/max over every turn (serve's /health), against the 30 s target;
   whether every turn was scored once; the server's CPU.
2. flood without rules, 3. flood with the rule (quiet period 1 s, so scoring could run while
   the spans arrive), alternately `--rounds` times: `--flood-spans` sent by 4 keep-alive
   senders as fast as the server takes them (bench/ingest/load.py); spans/s from the first
   request to all stored. Printed: each rate, the medians and their ratio, against the 10%
   target. (A pass waits while spans wait for their commit, up to 30 s: server/online.py.)

The machine's load is printed before and after: on a shared 2-core machine every figure
moves with it.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: adk_spans, ingest

from adk_spans import SPANS_PER_TURN, emit_turns
from ingest.load import send_all
from ingest.targets import Target, cpu_seconds, start_tracegrade, wait_until

TRACEGRADE = str(Path(sys.executable).with_name("tracegrade"))
RULE = {"name": "default", "criteria": {"tool_error_rate": {"max": 0.5}}}
LAG_TARGET_S = 30.0
THROUGHPUT_TARGET = 0.10


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns-per-minute", type=int, default=2000)
    parser.add_argument("--minutes", type=float, default=2.0)
    parser.add_argument("--flood-spans", type=int, default=60_000)
    parser.add_argument("--quiet", type=float, default=10.0, help="the paced rule's quiet_s")
    parser.add_argument(
        "--rounds", type=int, default=3, help="floods without and with, alternately"
    )
    parser.add_argument("--no-paced", action="store_true")
    args = parser.parse_args()
    print(f"load {_load()}")
    per_second = args.turns_per_minute / 60
    seconds = round(args.minutes * 60)
    turns = round(per_second * seconds)
    print(f"building {turns} turns ({turns * SPANS_PER_TURN} spans) ...")
    paced = _bodies(turns, max(1, round(per_second)))
    if not args.no_paced:
        with tempfile.TemporaryDirectory() as folder:
            _paced(Path(folder) / "paced", paced, turns, args.quiet)
    flood_turns = -(-args.flood_spans // SPANS_PER_TURN)
    flood = _bodies(flood_turns, 512 // SPANS_PER_TURN)
    per_body = _spans_per_body(flood_turns, 512 // SPANS_PER_TURN)
    rates: dict[str, list[float]] = {"without rules": [], "with the rule": []}
    for _ in range(args.rounds):
        for label, quiet in (("without rules", None), ("with the rule", 1.0)):
            with tempfile.TemporaryDirectory() as folder:
                rates[label].append(_flood(Path(folder), flood, per_body, quiet, label))
    medians = {label: statistics.median(values) for label, values in rates.items()}
    print(
        f"flood medians of {args.rounds}: without rules {medians['without rules']:,.0f} spans/s, "
        f"with the rule {medians['with the rule']:,.0f} spans/s"
    )
    ratio = medians["with the rule"] / medians["without rules"]
    verdict = "met" if ratio >= 1 - THROUGHPUT_TARGET else "NOT met"
    print(
        f"ingest with the rule / without: {ratio:.2f} "
        f"(target >= {1 - THROUGHPUT_TARGET:.2f}: {verdict})"
    )
    print(f"load {_load()}")


def _bodies(turns: int, turns_per_body: int) -> list[bytes]:
    """OTLP protobuf bodies of `turns_per_body` whole turns each, random ids."""
    import random

    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    random.seed(os.getpid())  # new ids each run: each server starts empty anyway
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    emit_turns(provider.get_tracer("gcp.vertex.agent", "2.13.0"), turns)
    spans = memory.get_finished_spans()
    step = turns_per_body * SPANS_PER_TURN
    return [
        encode_spans(spans[i : i + step]).SerializeToString() for i in range(0, len(spans), step)
    ]


def _spans_per_body(turns: int, turns_per_body: int) -> list[int]:
    return [
        min(turns_per_body, turns - i) * SPANS_PER_TURN for i in range(0, turns, turns_per_body)
    ]


def _rules(folder: Path, quiet: float) -> Path:
    path = folder / "rules.json"
    path.write_text(json.dumps({"quiet_s": quiet, "rules": [RULE]}))
    return path


def _paced(folder: Path, bodies: list[bytes], turns: int, quiet: float) -> None:
    folder.mkdir()
    target = start_tracegrade(folder, TRACEGRADE, extra=["--rules", str(_rules(folder, quiet))])
    try:
        cpu = cpu_seconds(target.process.pid)
        started = time.monotonic()
        _send_paced(target.url, bodies, 1.0)
        sent_s = time.monotonic() - started
        scored = lambda: _rule_health(target)["turns_scored"] >= turns  # noqa: E731
        done = wait_until(scored, 300, 0.5)
        health = _rule_health(target)
        once = _sql(target, "SELECT count(*), count(DISTINCT turn_id) FROM online_scored")
        cpu = cpu_seconds(target.process.pid) - cpu
        elapsed = time.monotonic() - started
    finally:
        target.stop()
    p95 = health["lag_p95_s"]
    verdict = "met" if done and p95 is not None and p95 < LAG_TARGET_S else "NOT met"
    print(
        f"paced: {turns} turns in {sent_s:.0f} s ({turns / sent_s * 60:,.0f} turns/min), "
        f"quiet period {quiet:g} s: {health['turns_scored']} scored "
        f"(ledger {once[0]} rows, {once[1]} distinct turns) in {health['passes']} passes"
    )
    print(
        f"  lag from completion to stored score: p50 {health['lag_p50_s']} s, p95 {p95} s, "
        f"max {health['lag_max_s']} s (target p95 < {LAG_TARGET_S:g} s: {verdict})"
    )
    print(f"  server CPU {cpu:.1f} s over {elapsed:.0f} s ({cpu / elapsed:.0%} of one core)")


def _send_paced(url: str, bodies: list[bytes], interval_s: float) -> None:
    """One body every `interval_s`, on schedule (a late send does not shift the next)."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    headers = {"content-type": "application/x-protobuf"}
    start = time.monotonic()
    for index, body in enumerate(bodies):
        delay = start + index * interval_s - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        while True:
            connection.request("POST", parts.path, body, headers)
            response = connection.getresponse()
            response.read()
            if response.status == 200:
                break
            time.sleep(float(response.getheader("retry-after") or 1))
    connection.close()


def _flood(
    folder: Path, bodies: list[bytes], per_body: list[int], quiet: float | None, label: str
) -> float:
    extra = [] if quiet is None else ["--rules", str(_rules(folder, quiet))]
    target = start_tracegrade(folder, TRACEGRADE, extra=extra)
    total = sum(per_body)
    try:
        report = send_all(target.url, bodies, per_body, 4)
        wait_until(lambda: target.count() >= total, 300, 0.02)
        seconds = time.time() - report.started_at
        scored = _rule_health(target)["turns_scored"] if quiet is not None else None
    finally:
        target.stop()
    rate = total / seconds
    also = f", {scored} turns scored meanwhile" if scored is not None else ""
    print(f"flood {label}: {total:,} spans in {seconds:.1f} s, {rate:,.0f} spans/s{also}")
    return rate


def _rule_health(target: Target) -> dict[str, object]:
    base = target.url.rsplit("/v1/", 1)[0]
    with urllib.request.urlopen(f"{base}/health", timeout=10) as response:
        document = json.load(response)
    rule: dict[str, object] = document["online"][0]
    return rule


def _sql(target: Target, query: str) -> list[object]:
    base = target.url.rsplit("/v1/", 1)[0]
    request = urllib.request.Request(
        f"{base}/v1/sql", data=json.dumps({"sql": query}).encode(),
        headers={"content-type": "application/json"},
    )  # fmt: skip
    with urllib.request.urlopen(request, timeout=60) as response:
        row: list[object] = json.load(response)["rows"][0]
        return row


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    main()
