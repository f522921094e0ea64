"""bench/scale: the archive, local DuckDB scoring over it, and Spark scoring, at ≥ 2M turns.

    python bench/scale/run.py [--turns 2000000] [--days 8] [--steps archive,check,build,local,spark]
                              [--partitions 32] [--local-full-day]

Steps (each prints its figures with the load; all are saved to
$TMPDIR/tracegrade-bench/scale/results-<time>.json):
  archive  `tracegrade archive` of a 1.04M-span hot database (bench/score's cached traffic):
           spans/s and bytes/span; what it writes is the template of the synthetic archive
  check    a small synthetic archive reads and scores as the same spans ingested normally
  build    the synthetic archive of --turns turns over --days days (cached)
  local    `tracegrade sql` reads every span back; `tracegrade score` with --since and
           --sample over the archive (and, with --local-full-day, every turn of its last day)
  spark    every turn of the archive's last day on a standalone cluster with 1 and 2
           workers, and a run of a handful of turns for a task's fixed cost
See README.md for the figures and the projection.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from measure import CACHE, say


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=2_000_000)
    parser.add_argument("--days", type=float, default=8.0)
    parser.add_argument("--steps", default="archive,check,build,local,spark")
    parser.add_argument("--partitions", type=int, default=32)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--spark-sample", type=float, default=1.0)
    parser.add_argument("--local-full-day", action="store_true")
    args = parser.parse_args()
    steps = set(args.steps.split(","))
    results: dict[str, Any] = {"args": vars(args)}
    out = CACHE / "scale" / f"results-{time.strftime('%Y%m%dT%H%M%S')}.json"
    try:
        _run(args, steps, results)
    finally:
        out.write_text(json.dumps(results, indent=1, default=str))
        say(f"results in {out}")


def _run(args: argparse.Namespace, steps: set[str], results: dict[str, Any]) -> None:
    from archiving import template_archive

    template = template_archive()  # measured when first made (the archive step)
    results["archive"] = json.loads((template / "meta.json").read_text())
    say(f"archiving: {results['archive']}")
    if "check" in steps:
        from check import check

        check(template)
        results["check"] = "passed"
    if not steps & {"build", "local", "spark"}:
        return
    from synth import cached_archive, meta

    root = cached_archive(template, args.turns, args.days)
    results["synthetic"] = meta(root)
    say(f"synthetic archive {root}: {results['synthetic']}")
    if "local" in steps:
        results["local"] = _local(root, args.local_full_day)
    if "spark" in steps:
        results["spark"] = _spark(root, args)


def _local(root: Path, full_day: bool) -> dict[str, Any]:
    from local import hot_database, last_day_since, read_back, score

    db = hot_database(root)
    figures: dict[str, Any] = {"read_back": read_back(db, root)}
    day = last_day_since(root)
    runs = [
        ("--since <last day> --sample 0.05", ["--since", day, "--sample", "0.05"]),
        ("--sample 0.01 (whole archive)", ["--sample", "0.01"]),
    ]
    if full_day:
        runs.append(("--since <last day> (every turn of it)", ["--since", day]))
    figures["score"] = [score(db, label, *options) for label, options in runs]
    return figures


def _spark(root: Path, args: argparse.Namespace) -> dict[str, Any]:
    from projection import fit, project, project_cpu
    from spark_run import run_cluster
    from synth import meta

    facts = meta(root)
    last_day = dt.datetime.fromtimestamp(facts["anchor_ns"] / 1e9, dt.UTC).date()
    path = str(root / "shard=s0" / f"day={last_day - dt.timedelta(days=1)}")
    base = Path(tempfile.mkdtemp(prefix="tracegrade-scale-spark-"))
    tiny = 50 / (args.turns / args.days)  # ~50 turns of the day: ~1-2 a task
    runs: list[dict[str, Any]] = []
    for workers in (int(w) for w in args.workers.split(",")):
        for name, run in zip(
            ("day", "tiny"),
            run_cluster(
                workers, path, base / "out", base, args.partitions, tiny, args.spark_sample
            ),
            strict=True,
        ):
            runs.append({"run": name, **run.summary(), "task_times": run.tasks})
    figures: dict[str, Any] = {"path": path, "runs": runs}
    by = {(r["run"], r["workers"]): r for r in runs}
    if ("day", 1) in by and ("day", 2) in by:
        figures["speedup_2_over_1"] = round(by["day", 1]["wall_s"] / by["day", 2]["wall_s"], 2)
    first = min(r["workers"] for r in runs)
    day, small = by["day", first], by["tiny", first]
    fixed, per_span = fit(day["task_times"] + small["task_times"])
    spans_per_turn = facts["spans"] / facts["turns"]
    scored = sum(t["spans"] for t in day["task_times"]) - sum(
        t["spans"] for t in small["task_times"]
    )
    cpu_per_span = (day["cpu_s"] - small["cpu_s"]) / scored
    read_per_span = small["cpu_s"] / (facts["spans"] / facts["days"])
    figures["per_task"] = {
        "workers": first,
        "fixed_s": round(fixed, 3),
        "per_span_us": round(per_span * 1e6, 1),
        "tiny_task_s_mean": small["task_s_mean"],
        "cpu_per_scored_span_us": round(cpu_per_span * 1e6, 1),
        "cpu_per_read_span_us": round(read_per_span * 1e6, 1),
        "load": day["load"],
    }
    figures["projection"] = [
        project(fixed, per_span, spans_per_turn, sample=share) for share in (1.0, 0.05)
    ]
    figures["projection_cpu"] = [
        project_cpu(read_per_span, cpu_per_span, spans_per_turn, sample=share)
        for share in (1.0, 0.05)
    ]
    say(f"spark: {json.dumps({k: v for k, v in figures.items() if k != 'runs'})}")
    return figures


if __name__ == "__main__":
    main()
