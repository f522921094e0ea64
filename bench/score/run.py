"""bench/score: score synthetic turns with tracegrade's SQL and, in the same run, with
google-adk's own TrajectoryEvaluator and response-match (ROUGE-1) evaluator. Prints
turns/s, peak RSS and the ratios; every size runs in a fresh process.

    python bench/score/run.py [--sizes 10000,100000,1000000] [--adk-max 100000]
                              [--validity-at 100000] [--rounds 3] [--against-src SRC]
    python bench/score/run.py --end-to-end [--turns 100000] [--rounds 3] [--against EXE]
                              [--short-answers]
    python bench/score/run.py --traffic-sample 0.05 [--turns 100000] [--rounds 3]

`--against-src SRC` also scores each size with tracegrade imported from SRC (another
build's `src`, e.g. main's checkout), interleaved with this build and ADK round by round.
First, tool_call_validity at --validity-at turns: alone, and the default metric set with
and without it, interleaved (--validity-at 0 skips it; --sizes "" runs only that part).

`--end-to-end` times what a user waits for: `tracegrade score` on a stored run (see
stored.py: ~11 ADK-shaped spans a turn, content captured) from the command's start until it
exits, against ADK's two evaluators on prebuilt invocations of the same turns, interleaved
round by round, with the machine's load, process CPU seconds and peak RSS of each;
`--against` also times another build's `tracegrade` (e.g. main's, installed in its own venv)
in each round. Each build scores a copy it upgraded first (`tracegrade db upgrade`, untimed),
so it reads turn facts its own SQL made, as its users would.
`--traffic-sample` times `tracegrade score --sample S --since 24h` on the same spans stored
as production traffic over 48 hours (traffic.py).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from synthetic import REPEATS, TOOLS

PART = 100_000  # turns made and loaded at a time (a multiple of REPEATS)


def ours(n: int, trajectory_only: bool, mode: str = "") -> dict[str, Any]:
    """`mode`: "" (with tool_call_validity), "no-validity" (the default set as before it),
    "validity" (tool_call_validity alone), "validity-distinct" (alone, every call's
    arguments different: nothing shared between repeats)."""
    from synthetic import turns

    from tracegrade.scoring import available_metrics, parse_config
    from tracegrade.scoring.engine import score_loaded
    from tracegrade.scoring.functions import register_functions
    from tracegrade.scoring.inputs import load_inputs
    from tracegrade.store import connect
    from tracegrade.store.canonical import canonical_args

    # A file, as tracegrade uses, so DuckDB may spill to disk; the turns are made and loaded
    # a part at a time so the benchmark's own Python data does not dominate its memory.
    workdir = tempfile.mkdtemp()
    connection = connect(Path(workdir) / "bench.duckdb")
    for start in range(0, n, PART):
        part = turns(min(PART, n - start), seed=start)
        tables = _tables(part, canonical_args, first=start, distinct=mode == "validity-distinct")
        load_inputs(connection, tables, append=start > 0, derive=start + PART >= n)
        del part, tables
    specs = available_metrics()
    register_functions(connection)
    if trajectory_only:
        # As scoring runs a metric: its rows into a table, not into Python objects.
        connection.execute('SET VARIABLE tg_options = \'{"match_type": "IN_ORDER"}\'::JSON')
        sql = specs["tool_trajectory_avg_score"].sql.strip().rstrip(";")
        seconds = _median_seconds(
            lambda: connection.execute(f"CREATE OR REPLACE TEMP TABLE trajectory_scores AS {sql}")
        )
        scored = connection.execute("SELECT count(*) FROM trajectory_scores").fetchall()[0][0]
        return {"turns": scored, "seconds": seconds}
    if mode.startswith("validity"):
        sql = specs["tool_call_validity"].sql.strip().rstrip(";")
        seconds = _median_seconds(
            lambda: connection.execute(f"CREATE OR REPLACE TEMP TABLE validity AS {sql}")
        )
        scored = connection.execute("SELECT count(*) FROM validity").fetchall()[0][0]
        return {"turns": scored, "seconds": seconds}
    if mode == "no-validity":
        del specs["tool_call_validity"]
    start = time.perf_counter()
    result = score_loaded(connection, parse_config(None, specs), specs)
    return {"turns": result.turns, "seconds": time.perf_counter() - start}


def _median_seconds(measured: Callable[[], object], times: int = 3) -> float:
    """The median of a few timings: a sub-second measurement on a shared machine is noisy."""
    seconds = []
    for _ in range(times):
        start = time.perf_counter()
        measured()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds)


def _tables(
    data: list[Any], canonical: Any, first: int = 0, distinct: bool = False
) -> dict[str, dict[str, list[Any]]]:
    from synthetic import tool_schema

    ids = [f"t{first + i:07d}" for i in range(len(data))]
    columns = ("turn_id", "seq", "name", "args", "args_captured", "parallel_group", "is_error")
    calls: dict[str, list[Any]] = {k: [] for k in columns}
    # What the schema check reads: the tool's schema as the model was given it, the args as sent.
    schemas = {name: json.dumps(tool_schema(name)) for name in TOOLS}
    checked: dict[str, list[Any]] = {"tool_offered": [], "tool_schema": [], "raw_args": []}
    expected: dict[str, list[Any]] = {k: [] for k in ("turn_id", "seq", "name", "args")}
    for turn_id, turn in zip(ids, data, strict=True):
        for seq, (name, args) in enumerate(turn.actual, start=1):
            for key, value in zip(
                calls,
                (turn_id, seq, name, canonical(args), True, f"{turn_id}{seq}", False),
                strict=True,
            ):
                calls[key].append(value)
            sent = {**args, "note": f"{turn_id}-{seq}"} if distinct else args
            checked["tool_offered"].append(True)
            checked["tool_schema"].append(schemas[name])
            checked["raw_args"].append(json.dumps(sent))
        for seq, (name, args) in enumerate(turn.expected, start=1):
            for key, value in zip(expected, (turn_id, seq, name, canonical(args)), strict=True):
                expected[key].append(value)
    n = len(data)
    return {
        "scored_turns": {
            "turn_id": ids,
            "run_id": ["bench"] * n,
            "eval_set_id": ["bench"] * n,
            "case_id": [f"c{(first + i) // REPEATS}" for i in range(n)],
            "repeat": [(first + i) % REPEATS for i in range(n)],
            "turn_index": [0] * n,
            "final_text": [t.response for t in data],
            "is_error": [False] * n,
            "has_expected": [True] * n,
            "latency_ms": [1000.0 + i % 700 for i in range(n)],
            "tool_calls": [len(t.actual) for t in data],
            "llm_calls": [3] * n,
            "llm_errors": [0] * n,
            "tool_errors": [0] * n,
            "total_tokens": [500] * n,
        },
        "scored_expected": {
            "turn_id": ids,
            "final_text": [t.reference for t in data],
            "n_tool_calls": [3] * n,
        },
        "scored_calls": calls | checked,
        "scored_expected_calls": expected,
    }


def adk(n: int, trajectory_only: bool, words: tuple[int, int] = (20, 40)) -> dict[str, Any]:
    from google.adk.evaluation.eval_case import IntermediateData, Invocation
    from google.adk.evaluation.eval_metrics import EvalMetric, ToolTrajectoryCriterion
    from google.adk.evaluation.final_response_match_v1 import RougeEvaluator
    from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator
    from google.genai import types

    def invocation(calls: list[Any], text: str) -> Invocation:
        return Invocation(
            user_content=types.Content(role="user", parts=[types.Part(text="q")]),
            final_response=types.Content(role="model", parts=[types.Part(text=text)]),
            intermediate_data=IntermediateData(
                tool_uses=[types.FunctionCall(name=c, args=a) for c, a in calls]
            ),
        )

    data = _parts(n, words)  # the turns stored.py stores, for the end-to-end comparison
    actual = [invocation(t.actual, t.response) for t in data]
    expected = [invocation(t.expected, t.reference) for t in data]
    criterion = ToolTrajectoryCriterion(
        threshold=1.0, match_type=ToolTrajectoryCriterion.MatchType.IN_ORDER
    )
    trajectory = TrajectoryEvaluator(
        eval_metric=EvalMetric(
            metric_name="tool_trajectory_avg_score", threshold=1.0, criterion=criterion
        )
    )
    response = RougeEvaluator(EvalMetric(metric_name="response_match_score", threshold=0.8))
    if trajectory_only:
        seconds = _median_seconds(lambda: trajectory.evaluate_invocations(actual, expected))
        return {"turns": n, "seconds": seconds}
    start = time.perf_counter()
    trajectory.evaluate_invocations(actual, expected)
    response.evaluate_invocations(actual, expected)
    return {"turns": n, "seconds": time.perf_counter() - start}


def _parts(n: int, words: tuple[int, int]) -> list[Any]:
    """The turns stored.py stores: made a part at a time, each part its own seed."""
    from stored import PART as STORED_PART
    from synthetic import turns

    return [t for s in range(0, n, STORED_PART) for t in turns(min(STORED_PART, n - s), s, words)]


def _child(
    which: str, n: int, trajectory_only: bool, mode: str, words: tuple[int, int] = (20, 40)
) -> dict[str, Any]:
    load = _load()
    cpu = time.process_time()
    result = ours(n, trajectory_only, mode) if which == "ours" else adk(n, trajectory_only, words)
    result["process_cpu_s"] = time.process_time() - cpu
    result["peak_rss_mb"] = _peak_rss_mb()
    result["load"] = load
    return result


def _peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _spawn(
    which: str,
    n: int,
    trajectory_only: bool,
    mode: str = "",
    words: tuple[int, int] = (20, 40),
    src: str | None = None,
) -> dict[str, Any]:
    """`src`: the child imports tracegrade from there (another build's `src`), not this one."""
    args = [sys.executable, __file__, "--child", which, "--n", str(n), "--mode", mode] + (
        ["--trajectory-only"] if trajectory_only else []
    )
    args += ["--words", f"{words[0]},{words[1]}"]
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    if src:
        env["PYTHONPATH"] = src
    done = subprocess.run(args, capture_output=True, text=True, check=True, env=env)
    return json.loads(done.stdout.strip().splitlines()[-1])


def end_to_end(
    n: int, rounds: int, cache: Path, against: str | None = None, short: bool = False
) -> None:
    """`against`: another build's `tracegrade` executable (e.g. main's, in its own venv),
    timed on the same file in each round, between ours and ADK's. `short`: answers of 20-40
    words instead of 150-300 (the issue's bar)."""
    from stored import SHORT_WORDS, WORDS, cached_database

    words = SHORT_WORDS if short else WORDS
    db = cached_database(n, cache, words)
    with tempfile.TemporaryDirectory(dir=cache) as folder:
        ours = _with_own_facts(db, None, Path(folder))
        theirs = _with_own_facts(db, against, Path(folder)) if against else None
        print(f"{'round':>5} {'who':12} {'turns/s':>9} {'wall s':>8} {'cpu s':>7} "
              f"{'peak MB':>8} {'lines':>7}  load before")  # fmt: skip
        runs: dict[str, list[dict[str, Any]]] = {"tracegrade": [], "against": [], "ADK": []}
        for round_ in range(rounds):
            runs["tracegrade"].append(_score_command(ours))
            _e2e_row(round_, "tracegrade", n, runs["tracegrade"][-1])
            if theirs is not None:
                runs["against"].append(_score_command(theirs, executable=against))
                _e2e_row(round_, "against", n, runs["against"][-1])
            runs["ADK"].append(_spawn("adk", n, False, words=words))
            _e2e_row(round_, "ADK", n, runs["ADK"][-1])
    medians = {who: _medians(r) for who, r in runs.items() if r}
    for who, (wall, cpu) in medians.items():
        print(f"median {who}: {n / wall:,.0f} turns/s to exit ({wall:.1f} s wall, {cpu:.1f} s CPU)")
    adk_wall, adk_cpu = medians["ADK"]
    for who in ("tracegrade", "against"):
        if who in medians:
            wall, cpu = medians[who]
            print(f"{who} against ADK: {adk_wall / wall:.2f}x wall, {adk_cpu / cpu:.2f}x CPU")


def facts(n: int, rounds: int, cache: Path) -> None:
    """`tracegrade score` on the stored run with its turn facts (kept by the writer as the
    run was stored) against the same file without them (rebuilt from spans, as before
    migration 10), interleaved; and what computing the facts costs, on its own."""
    import shutil

    from stored import cached_database

    from tracegrade.store import connect
    from tracegrade.store.turn_facts import keep_all

    db = cached_database(n, cache)
    with_facts, without = (cache / f"{db.stem}-{kind}.duckdb" for kind in ("facts", "spans"))
    shutil.copyfile(db, with_facts)
    connection = connect(with_facts)
    keeper = connection.cursor()
    start = time.perf_counter()
    added = keep_all(keeper)
    print(f"facts the writer had not kept: {added:,} traces, computed in "
          f"{time.perf_counter() - start:.1f} s")  # fmt: skip
    for table in ("turn_facts", "turn_fact_calls", "turn_fact_llm_calls", "turn_fact_traces"):
        connection.execute(f"DELETE FROM {table}")  # noqa: S608 — constants
    connection.execute("CHECKPOINT")
    shutil.copyfile(with_facts, without)
    start = time.perf_counter()
    computed = keep_all(keeper)
    cost = time.perf_counter() - start
    connection.execute("CHECKPOINT")
    keeper.close()
    connection.close()
    print(f"computing every trace's facts at once: {computed:,} traces in {cost:.1f} s")
    print(f"{'round':>5} {'who':12} {'turns/s':>9} {'wall s':>8} {'cpu s':>7} {'peak MB':>8} "
          f"{'lines':>7}  load before")  # fmt: skip
    runs: dict[str, list[dict[str, Any]]] = {"facts": [], "spans": []}
    for round_ in range(rounds):
        for who, path in (("facts", with_facts), ("spans", without)):
            runs[who].append(_score_command(path))
            _e2e_row(round_, who, n, runs[who][-1])
    for who, r in runs.items():
        wall, cpu = _medians(r)
        print(f"median {who}: {n / wall:,.0f} turns/s to exit ({wall:.1f} s wall, {cpu:.1f} s CPU)")


def _medians(runs: list[dict[str, Any]]) -> tuple[float, float]:
    cpu = [r.get("cpu_s", r.get("process_cpu_s", 0.0)) for r in runs]
    return statistics.median(r["seconds"] for r in runs), statistics.median(cpu)


def traffic(n: int, rounds: int, cache: Path, sample: float) -> None:
    """`tracegrade score --sample S --since 24h` over the stored run's spans as traffic (see
    stored.cached_traffic: spread over 48 h, so the window holds half of them)."""
    from traffic import cached_traffic

    db = cached_traffic(n, cache)
    with tempfile.TemporaryDirectory(dir=cache) as folder:
        _traffic_rounds(n, rounds, _with_own_facts(db, None, Path(folder)), sample)


def _traffic_rounds(n: int, rounds: int, db: Path, sample: float) -> None:
    import duckdb
    from traffic import HOURS

    with duckdb.connect(str(db), read_only=True) as connection:
        found = connection.execute("SELECT count(*), max(start_ns) FROM spans").fetchall()
    spans, newest = found[0]
    since_s = (time.time_ns() - newest) // 10**9 + HOURS * 3600 // 2
    options = ["--sample", str(sample), "--since", f"{since_s}s"]
    print(f"{spans:,} spans of {n:,} turns; tracegrade score {' '.join(options)}")
    print(f"{'round':>5} {'turns':>6} {'wall s':>8} {'cpu s':>7} {'peak MB':>8}  load before")
    runs = [_score_command(db, options) for _ in range(rounds)]
    for round_, r in enumerate(runs):
        print(f"{round_:>5} {r['turns']:>6} {r['seconds']:>8.1f} {r['cpu_s']:>7.1f} "
              f"{r['peak_rss_mb']:>8.0f}  {r['load']}")  # fmt: skip
    print(f"median wall {statistics.median(r['seconds'] for r in runs):.1f} s")


def _with_own_facts(db: Path, executable: str | None, folder: Path) -> Path:
    """A copy of the stored run in `folder` after `tracegrade db upgrade` by the build that
    will be timed on it (`executable`; None: this one), untimed. Turn facts are made by a
    build's own SQL (store/turn_facts.py, `version`): a build whose SQL differs from the
    one that stored the run finds them stale and rebuilds every turn from spans, as a user
    would until their one `db upgrade` after upgrading."""
    import shutil

    copy = folder / f"{db.stem}-{sum(1 for _ in folder.iterdir())}.duckdb"
    shutil.copyfile(db, copy)
    start = time.perf_counter()
    upgrade = [executable or _TRACEGRADE, "db", "upgrade", "--db", str(copy)]
    done = subprocess.run(upgrade, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{' '.join(upgrade)} failed: {done.stderr[-2000:]}")
    computed = re.search(r"computed for ([\d,]+) traces", done.stdout)
    print(f"{executable or 'this build'}: db upgrade computed the facts of "
          f"{computed.group(1) if computed else 0} traces in {time.perf_counter() - start:.0f} s "
          "(untimed)")  # fmt: skip
    return copy


def _score_command(
    db: Path, options: Sequence[str] = (), executable: str | None = None
) -> dict[str, Any]:
    """`tracegrade score` (this build's, or `executable`) on a fresh copy of the stored run,
    stdout to a pipe as in CI."""
    import shutil

    with tempfile.TemporaryDirectory() as workdir:
        copy = Path(workdir) / db.name
        shutil.copyfile(db, copy)
        load = _load()
        returncode, stdout, stderr, usage = _run_measured(
            [executable or _TRACEGRADE, "score", "--db", str(copy), *options]
        )
    if returncode not in (0, 1):
        raise SystemExit(f"tracegrade score failed ({returncode}): {stderr[-2000:]}")
    return {
        **usage,
        "lines": stdout.count("\n"),
        "turns": _scored_turns(stdout),
        "load": load,
    }


# Spawns the command, waits for it and writes its wall seconds, CPU seconds and peak RSS to
# the file argv[1]. A process that starts another (fork, vfork or posix_spawn) hands its own
# peak RSS to it at exec (Linux keeps the larger in the child's ru_maxrss), so spawned
# straight from this process, whose peak holds the stored run's build (7.8 GB), the command
# would report this process's peak, not its own; from a fresh interpreter it reports ~10 MB
# or its own, whichever is larger.
_LAUNCHER = """
import json, os, sys, time
start = time.perf_counter()
pid = os.posix_spawnp(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
seconds = time.perf_counter() - start
with open(sys.argv[1], "w") as report:
    json.dump({"seconds": seconds, "cpu_s": usage.ru_utime + usage.ru_stime,
               "peak_rss_mb": usage.ru_maxrss / 1024}, report)
sys.exit(os.waitstatus_to_exitcode(status))
"""


def _run_measured(args: list[str]) -> tuple[int, str, str, dict[str, float]]:
    """Run `args` with stdout and stderr to pipes; its exit code, output and its own wall
    seconds, CPU seconds and peak RSS (see _LAUNCHER)."""
    import threading

    with tempfile.NamedTemporaryFile("r", suffix=".json") as report:
        process = subprocess.Popen(
            [sys.executable, "-c", _LAUNCHER, report.name, *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONWARNINGS": "ignore"},
        )  # fmt: skip
        output: dict[str, str] = {}
        readers = [
            threading.Thread(target=lambda n=name, f=pipe: output.__setitem__(n, f.read()))
            for name, pipe in (("out", process.stdout), ("err", process.stderr))
        ]
        for reader in readers:
            reader.start()
        returncode = process.wait()
        for reader in readers:
            reader.join()
        measured = Path(report.name).read_text()
    if not measured:  # the launcher failed before the command ran (exit 1, as a failed gate)
        raise SystemExit(f"could not start {args[0]}: {output['err'][-2000:]}")
    return returncode, output["out"], output["err"], json.loads(measured)


_TRACEGRADE = str(Path(sys.executable).with_name("tracegrade"))


def _scored_turns(report: str) -> int | None:
    found = re.search(r"([\d,]+) turns", report)
    return int(found.group(1).replace(",", "")) if found else None


def _e2e_row(round_: int, who: str, n: int, r: dict[str, Any]) -> None:
    cpu = r.get("cpu_s", r.get("process_cpu_s", 0.0))
    lines = r.get("lines", "")
    print(f"{round_:>5} {who:12} {n / r['seconds']:>9,.0f} {r['seconds']:>8.1f} {cpu:>7.1f} "
          f"{r['peak_rss_mb']:>8.0f} {lines!s:>7}  {r.get('load', '')}", flush=True)  # fmt: skip


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument(
        "--adk-max", type=int, default=100_000, help="largest size ADK also runs at"
    )
    parser.add_argument("--child")
    parser.add_argument("--n", type=int)
    parser.add_argument("--trajectory-only", action="store_true")
    parser.add_argument("--mode", default="")
    parser.add_argument(
        "--validity-at", type=int, default=100_000, help="turns for the tool_call_validity part"
    )
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds")
    parser.add_argument("--words", default="20,40", help="reference answer length (child)")
    parser.add_argument("--end-to-end", action="store_true")
    parser.add_argument(
        "--facts", action="store_true", help="end to end: with the turn facts and without"
    )
    parser.add_argument("--turns", type=int, default=100_000)
    parser.add_argument(
        "--short-answers", action="store_true", help="end to end: answers of 20-40 words"
    )
    parser.add_argument(
        "--against", help="end to end: another build's tracegrade executable, timed each round"
    )
    parser.add_argument(
        "--against-src",
        help="--sizes: also score with tracegrade imported from this src, each round",
    )
    parser.add_argument("--traffic-sample", type=float, help="score traffic at this sample")
    parser.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "tracegrade-bench"))
    args = parser.parse_args()
    if args.child:
        words = tuple(int(w) for w in args.words.split(","))
        print(json.dumps(_child(args.child, args.n, args.trajectory_only, args.mode, words)))
        return
    if args.traffic_sample:
        print(f"load {_load()}")
        traffic(args.turns, args.rounds, Path(args.cache), args.traffic_sample)
        return
    if args.facts:
        print(f"load {_load()}")
        facts(args.turns, args.rounds, Path(args.cache))
        return
    if args.end_to_end:
        print(f"load {_load()}")
        end_to_end(args.turns, args.rounds, Path(args.cache), args.against, args.short_answers)
        return
    if args.validity_at:
        validity(args.validity_at, args.rounds)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    head = f"{'turns':>9} {'what':34} {'tracegrade/s':>13} {'ADK/s':>9} {'ratio':>7}"
    if sizes:
        print(f"load {_load()}")
        print(f"{head} {'our peak MB':>12} {'ADK peak MB':>12}")
    for n in sizes:
        for trajectory_only, label in (
            (True, "trajectory (IN_ORDER)"),
            (False, "default metrics vs ADK's two"),
        ):
            builds = {label: None} | (
                {f"{label}, against": args.against_src} if args.against_src else {}
            )
            ratios: dict[str, list[float]] = {who: [] for who in builds}
            for _ in range(args.rounds):  # interleaved: every build and ADK meet the same load
                mine = {
                    who: _spawn("ours", n, trajectory_only, src=src) for who, src in builds.items()
                }
                theirs = _spawn("adk", n, trajectory_only) if n <= args.adk_max else None
                for who, result in mine.items():
                    _row(n, who, result, theirs)
                    if theirs:
                        ratios[who].append(_rate(result) / _rate(theirs))
            for who, found in ratios.items():
                if len(found) > 1:
                    print(f"{'':9} {who}: median of {len(found)} rounds "
                          f"{statistics.median(found):.1f}x (load {_load()})")  # fmt: skip


def validity(n: int, rounds: int) -> None:
    """tool_call_validity alone, then the default metric set with and without it, the two
    interleaved round by round (a shared machine's load drifts), with the load printed."""
    print(f"tool_call_validity at {n} turns · load {_load()}")
    for mode, label in (("validity", "as generated"), ("validity-distinct", "all args distinct")):
        got = _spawn("ours", n, False, mode)
        print(f"  alone, {label:18} {got['turns'] / got['seconds']:10.0f} turns/s")
    times: dict[str, list[float]] = {"": [], "no-validity": []}
    for _ in range(rounds):
        for mode, found in times.items():
            got = _spawn("ours", n, False, mode)
            found.append(got["turns"] / got["seconds"])
    with_rate, without = (statistics.median(times[m]) for m in ("", "no-validity"))
    print(
        f"  default metrics: {without:.0f} turns/s without it, {with_rate:.0f} with it "
        f"({with_rate / without:.3f}×; medians of {rounds}: "
        f"without {_rates(times['no-validity'])}, with {_rates(times[''])}) · load {_load()}",
        flush=True,
    )


def _rates(rates: list[float]) -> str:
    return "/".join(f"{r:.0f}" for r in rates)


def _rate(result: dict[str, Any]) -> float:
    return float(result["turns"] / result["seconds"])


def _row(n: int, label: str, mine: dict[str, Any], theirs: dict[str, Any] | None) -> None:
    ours_rate = _rate(mine)
    adk_rate = _rate(theirs) if theirs else None
    ratio = f"{ours_rate / adk_rate:6.1f}x" if adk_rate else "      –"
    adk_text = f"{adk_rate:9.0f}" if adk_rate else "        –"
    adk_mem = f"{theirs['peak_rss_mb']:12.0f}" if theirs else "           –"
    mine_mem = f"{mine['peak_rss_mb']:12.0f}"
    print(
        f"{n:9d} {label:34} {ours_rate:13.0f} {adk_text} {ratio} {mine_mem} {adk_mem}",
        flush=True,
    )


if __name__ == "__main__":
    main()
