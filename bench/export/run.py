"""bench/export: ADK-shaped spans through BatchSpanProcessor into nothing, ADK's
SqliteSpanExporter, and tracegrade's DuckDBSpanExporter (and through configure()'s
blocking processor), each in a fresh process. Prints spans/s, exporter CPU per span and
peak RSS, with ratios against ADK's exporter.

    python bench/export/run.py [--spans 100000]
    python bench/export/run.py --against MAIN/.venv/bin/python --rounds 3   # A/B, interleaved
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[1]))

MODES = {
    "none": "BatchSpanProcessor, no exporter (span creation alone)",
    "adk_sqlite": "BatchSpanProcessor + google-adk SqliteSpanExporter",
    "duckdb": "BatchSpanProcessor + tracegrade DuckDBSpanExporter",
    "configure": "tracegrade.configure(): BlockingSpanProcessor + DuckDBSpanExporter",
    "duckdb_default_queue": "BatchSpanProcessor (default queue) + DuckDBSpanExporter",
    "adk_sqlite_default_queue": "BatchSpanProcessor (default queue) + SqliteSpanExporter",
}


class Timed:
    """Wraps an exporter to add up the CPU time of its own export calls."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.cpu_s = 0.0
        self.exported = 0

    def export(self, spans: Sequence[Any]) -> Any:
        start = time.thread_time()
        result = self.inner.export(spans)
        self.cpu_s += time.thread_time() - start
        self.exported += len(spans)
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return True


def child(mode: str, spans: int, workdir: Path) -> dict[str, Any]:
    from adk_spans import SPANS_PER_TURN, emit_turns
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

    class Nothing(SpanExporter):
        def export(self, batch: Sequence[Any]) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    exporter = Timed(_exporter(mode, workdir, Nothing))
    big_queue = {"max_queue_size": spans + 1, "max_export_batch_size": 512}
    if mode == "configure":
        from tracegrade.capture import BlockingSpanProcessor

        processor: Any = BlockingSpanProcessor(exporter)
    elif mode.endswith("default_queue"):
        processor = BatchSpanProcessor(exporter)
    else:
        processor = BatchSpanProcessor(exporter, **big_queue)
    provider = TracerProvider()
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("gcp.vertex.agent", "2.13.0")
    cpu0, wall0 = _process_cpu(), time.perf_counter()
    emit_turns(tracer, spans // SPANS_PER_TURN)
    processor.force_flush(600_000)
    flushed = time.perf_counter() - wall0
    # Until shutdown returns: the exporters close their files there (DuckDB checkpoints
    # what its log holds), and the user's process waits for it before it exits.
    provider.shutdown()
    wall = time.perf_counter() - wall0
    cpu = _process_cpu() - cpu0
    return {
        "mode": mode,
        "spans": spans // SPANS_PER_TURN * SPANS_PER_TURN,
        "exported": exporter.exported,
        "wall_s": wall,
        "flush_s": flushed,
        "process_cpu_s": cpu,
        "exporter_cpu_s": exporter.cpu_s,
        "threads": threading.active_count(),
        "peak_rss_mb": _peak_rss_mb(),
    }


def _exporter(mode: str, workdir: Path, nothing: type) -> Any:
    if mode.startswith("adk_sqlite"):
        from google.adk.telemetry.sqlite_span_exporter import SqliteSpanExporter

        return SqliteSpanExporter(db_path=str(workdir / "adk.sqlite"))
    if mode in ("duckdb", "configure", "duckdb_default_queue"):
        from tracegrade.capture import DuckDBSpanExporter

        return DuckDBSpanExporter(workdir / "tracegrade.duckdb")
    return nothing()


def _process_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--spans", type=int, default=100_000)
    parser.add_argument("--child")
    parser.add_argument("--workdir")
    parser.add_argument(
        "--against",
        help="another build's python (e.g. main's .venv/bin/python): ADK's exporter, this "
        "build's configure() and that build's, interleaved, --rounds times",
    )
    parser.add_argument(
        "--rounds", type=int, default=1,
        help="interleaved rounds of ADK's exporter and configure() (and --against's), with "
        "medians; 1 without --against runs every mode once",
    )  # fmt: skip
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.spans, Path(args.workdir))))
        return
    if args.against or args.rounds > 1:
        compare(args.spans, args.against, args.rounds)
        return
    results = [_spawn(mode, args.spans) for mode in MODES]
    _print(results)


def compare(spans: int, against: str | None, rounds: int) -> None:
    """Each round: ADK's exporter, configure() here, and configure() in the other build."""
    runs: dict[str, list[dict[str, Any]]] = {"adk_sqlite": [], "configure": []}
    if against:
        runs["against"] = []
    for number in range(rounds):
        round_results = [_spawn("adk_sqlite", spans), _spawn("configure", spans)]
        if against:
            round_results.append({**_spawn("configure", spans, against), "mode": "against"})
        for result in round_results:
            runs[result["mode"]].append(result)
        print(f"round {number + 1}, load {os.getloadavg()[0]:.2f}")
        _print(round_results, legend=False)
    print(f"medians of {rounds} rounds" + (f" ({against} as `against`)" if against else ""))
    for mode, results in runs.items():
        rate = statistics.median(r["exported"] / r["wall_s"] for r in results)
        cpu = statistics.median(1e6 * r["process_cpu_s"] / r["spans"] for r in results)
        peak = statistics.median(r["peak_rss_mb"] for r in results)
        adk = statistics.median(r["exported"] / r["wall_s"] for r in runs["adk_sqlite"])
        adk_peak = statistics.median(r["peak_rss_mb"] for r in runs["adk_sqlite"])
        print(
            f"  {mode:12} {rate:9.0f} spans/s {cpu:7.1f} cpu µs/span {peak:6.0f} MB  "
            f"{rate / adk:.2f}x ADK's speed, {peak / adk_peak:.2f}x its memory"
        )


def _spawn(mode: str, spans: int, python: str = sys.executable) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as workdir:
        done = subprocess.run(
            [
                python,
                __file__,
                "--child",
                mode,
                "--spans",
                str(spans),
                "--workdir",
                workdir,
            ],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONWARNINGS": "ignore"},
        )
    return json.loads(done.stdout.strip().splitlines()[-1])


def _print(results: list[dict[str, Any]], legend: bool = True) -> None:
    adk = next(r for r in results if r["mode"] == "adk_sqlite")
    header = f"{'mode':26} {'spans/s':>9} {'lost':>7} {'exp µs/span':>11} {'cpu µs/span':>11}"
    print(f"{header} {'peak MB':>8}  vs ADK")
    for r in results:
        rate = r["exported"] / r["wall_s"]
        lost = r["spans"] - r["exported"]
        speed = rate / (adk["exported"] / adk["wall_s"])
        memory = r["peak_rss_mb"] / adk["peak_rss_mb"]
        exporter_us = 1e6 * r["exporter_cpu_s"] / max(r["exported"], 1)
        process_us = 1e6 * r["process_cpu_s"] / r["spans"]
        print(
            f"{r['mode']:26} {rate:9.0f} {lost:7d} {exporter_us:11.1f} {process_us:11.1f} "
            f"{r['peak_rss_mb']:8.0f}  {speed:.2f}x speed, {memory:.2f}x memory"
        )
    if not legend:
        return
    print(f"\nload {os.getloadavg()[0]:.2f}")
    for mode, text in MODES.items():
        print(f"  {mode:26} {text}")
    print("  spans/s = spans stored / wall time from the first span until shutdown returns;")
    print(
        "  exp µs/span = CPU time inside export() per span; cpu µs/span = whole process, per span."
    )


if __name__ == "__main__":
    main()
