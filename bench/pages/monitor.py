"""The monitor page on a large store: its 24h, 7d and 30d windows of one online rule over N
scored ADK-shaped traffic turns.

    .venv/bin/python bench/pages/monitor.py [--turns 430000] [--repeat 3] [--view]

Target (issue 25, monitor at scale): the 7d window in under 1 s with 100k scored turns in it.
The traces bench's store (bench/pages/traces.py: N turns over 30 days, so 7 days hold
N * 7/30; 430k turns put 100k in the last 7 days) is copied and every turn scored as serve's
passes write them: one scoring of rule `bench` per hour of turns (`selection.rule`), two
metrics per turn (latency in seconds held to max 5; tool_error_rate, 1 for the turns that
crashed), inserted in SQL (scoring 430k turns through the engine would be the online bench,
not this one). Cached beside the traces store.

Measured: serve's monitor page renderer (tracegrade.report.pages.monitor_live) over a
read-only connection, first (cold) and the median of --repeat more, with CPU time;
--view: the same points read through the `metric_series` view, as the page did before.

The copies are made in SQL, past the writer, so their turn facts are then computed as
`tracegrade db upgrade` computes them (store.turn_facts.keep_all); the cached file's name
carries the facts' version, so a tracegrade whose SQL differs builds its own.

Measured here (2-core machine shared with other work, load average 7 to 9), before the page
read the facts (it rebuilt every turn of the window from its spans) and after:

    store       window  scored turns  before (from spans)      after (from the facts)
    100k turns  24h       3.3k        594 ms, 315 ms CPU       688 ms, 184 ms CPU
    100k turns  7d         23k        2,376 ms, 1,326 ms CPU   1,170 ms, 302 ms CPU
    100k turns  30d       100k        19.6 s, 6.2 s CPU        2.7 s, 0.69 s CPU
    430k turns  24h        14k        3.7 s, 1.2 s CPU         1.06 s, 0.43 s CPU
    430k turns  7d        100k        17.8 s, 5.8 s CPU        1.77 s, 0.89 s CPU
    430k turns  30d       430k        -                        4.3 s, 2.7 s CPU

(430k before: an earlier run at load ~10.) The 7d target is met in CPU time, not in wall
time on the shared machine. What is left: finding the window's scores, counting their
traces' spans for freshness, the aggregation.
Through the view, as the page read before, the 24h window at 430k took 143 s wall, 47 s CPU
(--view).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import time
from pathlib import Path

import duckdb

from tracegrade.report import pages
from tracegrade.store import LocalReader, connect
from tracegrade.store.turn_facts import keep_all, version

sys.path.insert(0, str(Path(__file__).resolve().parent))
from traces import _store  # the traces bench's store, shared

TARGET_S = 1.0
_SCORE = """
CREATE TEMP TABLE bench_turns AS
SELECT trace_id || '-' || span_id AS turn_id, start_ns, (end_ns - start_ns) / 1e9 AS latency_s,
       status_code = 'ERROR' AS crashed, start_ns // 3600000000000 AS hour
FROM spans WHERE parent_span_id IS NULL;
INSERT INTO scorings (scoring_id, scored_at, run_id, selection, config, turns, error_rate,
                      verdict, exit_code, tracegrade_version)
SELECT 'bench-' || hour, make_timestamptz(max(start_ns) // 1000 + 60000000), NULL,
       '{"rule": "bench", "rule_version": "v1"}',
       '{"criteria": {"latency": {"max": 5}, "tool_error_rate": {"max": 0.5}}}',
       count(*), 0, 'passed', 0, 'bench'
FROM bench_turns GROUP BY hour;
INSERT INTO scores (scoring_id, level, turn_id, metric, score, threshold, passed, status, detail)
SELECT 'bench-' || hour, 'turn', turn_id, m.metric,
       CASE m.metric WHEN 'latency' THEN latency_s ELSE crashed::INTEGER END,
       CASE m.metric WHEN 'latency' THEN 5 ELSE 0.5 END,
       NOT crashed OR m.metric = 'latency',
       CASE WHEN crashed AND m.metric = 'tool_error_rate' THEN 'failed' ELSE 'passed' END, '{}'
FROM bench_turns, (VALUES ('latency'), ('tool_error_rate')) m(metric);
"""
VIEW_POINTS = """
SELECT metric, epoch_us(bucket) AS bucket_us, service_version, sum(turns_scored) AS turns
FROM metric_series
WHERE grain = $1 AND epoch_us(bucket) >= $2 AND rule = 'bench'
GROUP BY ALL
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=430_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--view", action="store_true", help="also time the view's read")
    args = parser.parse_args()
    print(f"load average before: {Path('/proc/loadavg').read_text().split()[:3]}")
    db = _scored(_store(args.turns))
    connection = connect(db, read_only=True)
    try:
        for window, seconds in (("24h", 86_400), ("7d", 7 * 86_400), ("30d", 30 * 86_400)):
            turns = _turns_in(connection, seconds)
            _measure(LocalReader(connection), window, turns, args.repeat)
            if args.view:
                _view(connection, window, seconds)
    finally:
        connection.close()
    print(f"load average after: {Path('/proc/loadavg').read_text().split()[:3]}")


def _scored(store: Path) -> Path:
    # By the facts' SQL: facts another tracegrade made are stale, and the page rebuilds them.
    path = store.with_name(store.name.replace("traces-", f"monitor-{version()}-"))
    if path.exists():
        return path
    started = time.perf_counter()
    building = path.with_suffix(".building")
    shutil.copyfile(store, building)
    connection = connect(building)
    try:
        for statement in _SCORE.split(";\n"):
            if statement.strip():
                connection.execute(statement)
        scored = time.perf_counter()
        print(f"scored every turn in {scored - started:.0f} s")
        # The copies were made in SQL, past the writer: their facts computed as
        # `tracegrade db upgrade` computes them for a store written without.
        computed = keep_all(connection.cursor())
        print(f"turn facts of {computed:,} traces in {time.perf_counter() - scored:.0f} s")
        connection.execute("CHECKPOINT")
    finally:
        connection.close()
    building.rename(path)
    return path


def _turns_in(connection: duckdb.DuckDBPyConnection, seconds: int) -> int:
    since_ns = time.time_ns() - seconds * 10**9
    ((found,),) = connection.execute(
        "SELECT count(DISTINCT turn_id) FROM scores s JOIN spans r ON r.trace_id = "
        "split_part(s.turn_id, '-', 1) AND r.span_id = split_part(s.turn_id, '-', 2) "
        "WHERE r.start_ns >= ?",
        [since_ns],
    ).fetchall()
    return int(found)


def _measure(reader: LocalReader, window: str, turns: int, repeat: int) -> None:
    times, cpu = [], []
    for _ in range(repeat + 1):
        started, used = time.perf_counter(), time.process_time()
        html = pages.monitor_live(reader, {"window": window, "rule": "bench"})
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - used)
    plots = html.count('class="plot')
    median = statistics.median(times[1:])
    target = f" (target < {TARGET_S * 1000:.0f} ms: {'met' if median < TARGET_S else 'NOT met'})"
    print(f"monitor {window}: {turns:,} scored turns, {plots} plots; first "
          f"{times[0] * 1000:.0f} ms, median of {repeat} {median * 1000:.0f} ms, CPU "
          f"{statistics.median(cpu[1:]) * 1000:.0f} ms"
          f"{target if window == '7d' else ''}")  # fmt: skip


def _view(connection: duckdb.DuckDBPyConnection, window: str, seconds: int) -> None:
    grain = "day" if window == "30d" else "hour"
    started = time.perf_counter()
    connection.execute(VIEW_POINTS, [grain, (time.time_ns() // 1000) - seconds * 10**6])
    print(f"  through the metric_series view: {(time.perf_counter() - started) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
