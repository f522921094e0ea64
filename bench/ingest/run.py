"""Ingest benchmark: OTLP/HTTP protobuf into `tracegrade serve`, and into Arize Phoenix.

    python bench/ingest/run.py [--spans 100000] [--senders 4] [--phoenix-spans 25000]
    python bench/ingest/run.py --against OTHER/.venv/bin/tracegrade --rounds 3   # A/B, interleaved

Sends ADK-shaped spans (bench/adk_spans.py, content captured; `--shape small` for
tests/span_factory.py's) in batches of 512 from a separate process to a fresh server and
measures, per server: spans/s until every span is queryable, server CPU per span
(/proc/<pid>/stat), peak RSS (VmHWM), spans lost (sent - stored), and 429/503 answers.
A second tracegrade run floods it (many senders, retrying 429 after 10 ms instead of
Retry-After) to show memory stays bounded when senders outrun it. Phoenix runs when
/work/venv-phoenix (or --phoenix) has `phoenix` installed.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from load import SHAPES, build_bodies, send_all
from targets import (
    Target,
    cpu_seconds,
    memory_kib,
    start_phoenix,
    start_tracegrade,
    thread_cpu_seconds,
)

BATCH = 512


@dataclass
class Result:
    name: str
    spans: int
    stored: int
    seconds: float
    cpu_s: float
    peak_rss_mb: float
    statuses: dict[int, int]
    load: str = ""
    """/proc/loadavg's 1-minute figure when the run ended (other jobs share the machine)."""
    threads: dict[str, float] | None = None
    """The server's CPU seconds by thread ("main" is the event loop), busiest first."""

    @property
    def rate(self) -> float:
        return self.stored / self.seconds

    @property
    def cpu_us_per_span(self) -> float:
        return self.cpu_s / max(self.stored, 1) * 1e6

    def line(self) -> str:
        retried = self.statuses.get(429, 0) + self.statuses.get(503, 0)
        return (
            f"{self.name:<22} {self.rate:>10,.0f} spans/s "
            f"{self.cpu_us_per_span:>8.1f} µs CPU/span  "
            f"peak RSS {self.peak_rss_mb:>7.1f} MB  lost {self.spans - self.stored:>6}  "
            f"429/503 {retried:>5}  ({self.stored}/{self.spans} stored in {self.seconds:.1f} s)"
            f"  load {self.load}"
            + (f"\n{'':<22} CPU by thread, µs/span: {self._threads_line()}" if self.threads else "")
        )

    def _threads_line(self, shown: int = 5) -> str:
        busy = {name: seconds for name, seconds in (self.threads or {}).items() if seconds >= 0.01}
        per_span = [(name, seconds / max(self.stored, 1) * 1e6) for name, seconds in busy.items()]
        rest = sum(us for _, us in per_span[shown:])
        shares = [f"{name} {us:.1f}" for name, us in per_span[:shown]]
        return ", ".join(shares + ([f"{len(per_span) - shown} others {rest:.1f}"] if rest else []))


def measure(
    target: Target, name: str, bodies: list[bytes], per_body: list[int], senders: int,
    *, honour_retry_after: bool = True, settle_s: float = 30.0,
) -> Result:  # fmt: skip
    pid, expected = target.process.pid, sum(per_body)
    cpu_before, threads_before = cpu_seconds(pid), thread_cpu_seconds(pid)
    report = send_all(target.url, bodies, per_body, senders, honour_retry_after=honour_retry_after)
    _wait_for_count(target, expected, settle_s)
    seconds = time.time() - report.started_at
    return Result(
        name, expected, target.count(), seconds, cpu_seconds(pid) - cpu_before,
        memory_kib(pid, "VmHWM") / 1024, report.status_counts, _load(),
        _cpu_by_thread(pid, threads_before, thread_cpu_seconds(pid)),
    )  # fmt: skip


def _cpu_by_thread(pid: int, before: dict[int, float], after: dict[int, float]) -> dict[str, float]:
    spent = {tid: seconds - before.get(tid, 0.0) for tid, seconds in after.items()}
    busiest = sorted(spent, key=spent.__getitem__, reverse=True)
    return {("main" if tid == pid else f"thread {tid}"): spent[tid] for tid in busiest}


def _load() -> str:
    return Path("/proc/loadavg").read_text().split()[0]


def _wait_for_count(target: Target, expected: int, settle_s: float) -> None:
    """Until all are queryable, or the count has not moved for `settle_s` (spans were lost)."""
    last, last_change = -1, time.monotonic()
    while time.monotonic() - last_change < settle_s:
        current = target.count()
        if current >= expected:
            return
        if current != last:
            last, last_change = current, time.monotonic()
        time.sleep(0.05)


def run_tracegrade(
    args: argparse.Namespace,
    bodies: list[bytes],
    per_body: list[int],
    command: str | None = None,
    name: str = "tracegrade serve",
) -> Result:
    with tempfile.TemporaryDirectory(prefix="bench-tracegrade-") as workdir:
        target = start_tracegrade(
            Path(workdir), command or _tracegrade_command(), args.stored_before
        )
        name += f", {args.stored_before:,} stored" if args.stored_before else ""
        try:
            return measure(target, name, bodies, per_body, args.senders)
        finally:
            target.stop()


def run_flood(args: argparse.Namespace, bodies: list[bytes], per_body: list[int]) -> Result:
    with tempfile.TemporaryDirectory(prefix="bench-flood-") as workdir:
        target = start_tracegrade(Path(workdir), _tracegrade_command())
        try:
            idle = memory_kib(target.process.pid, "VmRSS") / 1024
            result = measure(
                target, f"tracegrade, {args.flood_senders} senders", bodies, per_body,
                args.flood_senders, honour_retry_after=False,
            )  # fmt: skip
            print(f"  (flood: RSS {idle:.0f} MB idle before, {result.peak_rss_mb:.0f} MB peak)")
            return result
        finally:
            target.stop()


def run_phoenix(
    args: argparse.Namespace, bodies: list[bytes], per_body: list[int]
) -> Result | None:
    phoenix = Path(args.phoenix)
    if not phoenix.exists():
        print(f"Phoenix skipped: {phoenix} not found (pip install arize-phoenix into a venv)")
        return None
    with tempfile.TemporaryDirectory(prefix="bench-phoenix-") as workdir:
        target = start_phoenix(Path(workdir), str(phoenix))
        try:
            return measure(target, "phoenix serve", bodies, per_body, args.senders)
        finally:
            target.stop()


def _tracegrade_command() -> str:
    found = shutil.which("tracegrade", path=str(Path(sys.executable).parent))
    if found is None:
        raise SystemExit("tracegrade is not installed in this interpreter's environment")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spans", type=int, default=100_000)
    parser.add_argument("--senders", type=int, default=4)
    parser.add_argument("--flood-senders", type=int, default=160)
    parser.add_argument("--phoenix", default="/work/venv-phoenix/bin/phoenix")
    parser.add_argument(
        "--phoenix-spans",
        type=int,
        default=25_000,
        help="Phoenix's load (at ~100-200 spans/s, 100k take 10-20 minutes; its rate is steady)",
    )
    parser.add_argument(
        "--stored-before",
        type=int,
        default=0,
        help="spans (random ids) in tracegrade's file before the load, as after days of traffic",
    )
    parser.add_argument(
        "--against",
        help="another build's `tracegrade` (e.g. main's): run both, interleaved, --rounds times",
    )
    parser.add_argument(
        "--rounds", type=int, default=1,
        help="interleaved rounds: tracegrade and Phoenix (or --against), with medians",
    )  # fmt: skip
    parser.add_argument(
        "--shape",
        choices=SHAPES,
        default="adk",
        help="adk: bench/adk_spans.py (content captured, ~1.7 KB a span); "
        "small: tests/span_factory.py's (~half that)",
    )
    parser.add_argument("--no-phoenix", action="store_true")
    parser.add_argument("--no-flood", action="store_true")
    args = parser.parse_args()

    print(f"building {args.spans} spans ({args.shape}) in protobuf requests of {BATCH} ...")
    bodies = build_bodies(args.spans, BATCH, shape=args.shape)
    per_body = [min(BATCH, args.spans - i * BATCH) for i in range(len(bodies))]
    print(f"{len(bodies)} requests, {sum(map(len, bodies)) / len(bodies) / 1024:.0f} KiB each")

    if args.against:
        compare(args, bodies, per_body)
    elif args.rounds > 1 and not args.no_phoenix:
        against_phoenix(args, bodies, per_body)
        return
    ours = run_tracegrade(args, bodies, per_body)
    print(ours.line())
    flood = (
        None
        if args.no_flood
        else run_flood(args, build_bodies(args.spans, BATCH, seed=2, shape=args.shape), per_body)
    )
    if flood:
        print(flood.line())
    theirs = None
    if not args.no_phoenix:
        count = min(args.phoenix_spans, args.spans)
        theirs = run_phoenix(args, bodies[: -(-count // BATCH)], per_body[: -(-count // BATCH)])
    print("\nresults")
    for result in (ours, flood, theirs):
        if result:
            print(result.line())
    if theirs:
        print(
            f"\ntracegrade / phoenix: {ours.rate / theirs.rate:.1f}x the spans/s, "
            f"{theirs.cpu_us_per_span / ours.cpu_us_per_span:.1f}x less CPU per span"
        )


def against_phoenix(args: argparse.Namespace, bodies: list[bytes], per_body: list[int]) -> None:
    """tracegrade and Phoenix alternately, --rounds times, then the medians' ratios."""
    count = -(-min(args.phoenix_spans, args.spans) // BATCH)
    runs = _alternately(
        args.rounds,
        lambda: run_tracegrade(args, bodies, per_body),
        lambda: run_phoenix(args, bodies[:count], per_body[:count]),
    )
    if runs:
        rate, cpu = _median_ratios(*runs)
        print(f"\ntracegrade / phoenix (medians of {args.rounds}): {rate:.1f}x the spans/s, "
              f"{1 / cpu:.1f}x less CPU per span")  # fmt: skip


def compare(args: argparse.Namespace, bodies: list[bytes], per_body: list[int]) -> None:
    """This build and another, alternately, so both meet the same load from other jobs."""
    runs = _alternately(
        args.rounds,
        lambda: run_tracegrade(args, bodies, per_body, None, "this build"),
        lambda: run_tracegrade(args, bodies, per_body, args.against, "against"),
    )
    if runs:
        rate, cpu = _median_ratios(*runs)
        print(f"\nthis build / {args.against} (medians of {args.rounds}): "
              f"{rate:.2f}x the spans/s, {cpu:.2f}x the CPU per span\n")  # fmt: skip


def _alternately(
    rounds: int, first: Callable[[], Result | None], second: Callable[[], Result | None]
) -> tuple[list[Result], list[Result]] | None:
    """`first` then `second`, `rounds` times, each line printed as it comes, so both meet
    the same load from other jobs; None if one could not run."""
    runs: tuple[list[Result], list[Result]] = ([], [])
    for _ in range(rounds):
        for results, run in zip(runs, (first, second), strict=True):
            result = run()
            if result is None:
                return None
            results.append(result)
            print(result.line(), flush=True)
    return runs


def _median_ratios(ours: list[Result], theirs: list[Result]) -> tuple[float, float]:
    """Ours over theirs: the median spans/s, and the median CPU a span."""
    rate = statistics.median(r.rate for r in ours) / statistics.median(r.rate for r in theirs)
    cpu = statistics.median(r.cpu_us_per_span for r in ours) / statistics.median(
        r.cpu_us_per_span for r in theirs
    )
    return rate, cpu


if __name__ == "__main__":
    main()
