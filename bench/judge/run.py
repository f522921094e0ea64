"""bench/judge: the same eval judged by google-adk's LocalEvalService (what `adk eval` runs)
and by tracegrade, with a judge that answers after a fixed 200 ms.

    python bench/judge/run.py [--turns 200] [--concurrency 64]

Needs google-adk's eval extra (LocalEvalService imports pandas and the Vertex SDK); see
README.md for the one command that makes such a venv. Every side runs in a fresh process.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
EXAMPLE = ROOT / "examples" / "home_automation"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200, help="at least this many turns")
    parser.add_argument("--concurrency", type=int, default=64, help="--judge-concurrency")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="bench-judge-"))
    prepared = _child("prepare", workdir, str(args.turns))
    adk = _child("adk", workdir)
    ours = _child("ours", workdir, str(args.concurrency))
    again = _child("ours", workdir, str(args.concurrency))
    _print(prepared, adk, ours, again, args.concurrency)


def _child(step: str, *arguments: Any) -> dict[str, Any]:
    """One step in a fresh interpreter; its last stdout line is its JSON result."""
    env = {**os.environ, "PYTHONPATH": f"{HERE}{os.pathsep}{EXAMPLE.parent}"}
    done = subprocess.run(
        [sys.executable, str(HERE / "steps.py"), step, *map(str, arguments)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{step} failed:\n{done.stderr[-4000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _print(
    prepared: dict[str, Any],
    adk: dict[str, Any],
    ours: dict[str, Any],
    again: dict[str, Any],
    concurrency: int,
) -> None:
    load = Path("/proc/loadavg").read_text().split()[:3]
    print(f"machine: {os.cpu_count()} CPUs, load average {' '.join(load)} (1, 5, 15 min)")
    print(
        f"eval: {prepared['cases']} cases, {prepared['turns']} turns; 2 judged metrics "
        f"(final_response_match_v2, rubric_based_final_response_quality_v1), num_samples 5; "
        f"the judge answers after {prepared['delay_s'] * 1000:.0f} ms"
    )
    print(
        f"{'':34}{'wall s':>8}{'CPU s':>8}{'judge calls':>13}{'peak in flight':>16}"
        f"{'same scores':>13}"
    )
    rows = [
        ("ADK LocalEvalService (defaults)", adk),
        (f"tracegrade --judge-concurrency {concurrency}", ours),
        ("tracegrade, scored again", again),
    ]
    for label, row in rows:
        same = "" if row is adk else ("yes" if row["scores"] == adk["scores"] else "NO")
        print(
            f"{label:34}{row['wall_s']:8.2f}{row['cpu_s']:8.2f}{row['calls']:13}"
            f"{row['peak']:16}{same:>13}"
        )
    floor = prepared["turns"] * 2 * 5 * prepared["delay_s"] / concurrency
    print(
        f"tracegrade took 1/{adk['wall_s'] / ours['wall_s']:.1f} of ADK's wall time "
        f"(the calls alone need {floor:.1f} s at {concurrency} in flight); "
        f"scoring again took {again['wall_s']:.2f} s with {again['calls']} judge calls"
    )


if __name__ == "__main__":
    start = time.monotonic()
    main()
    print(f"(bench total {time.monotonic() - start:.0f} s)")
