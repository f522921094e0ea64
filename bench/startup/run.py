"""How long a read command takes to start and finish, and how long the fast test tier takes.

    .venv/bin/python bench/startup/run.py [--rounds 7] [--against EXE]
    .venv/bin/python bench/startup/run.py --tier

Runs examples/home_automation once into a fresh database (the small database: ~15 turns),
then times `tracegrade --version`, `runs`, `sql "select 1"` and `report` on it, each a new
process until it exits (stdout to a pipe), `--rounds` times after one untimed warm-up round,
and prints each command's median and range against the targets (0.3 s for `--version`,
0.7 s for the others) with the machine's load before and after. `--against EXE` times
another build's `tracegrade` (e.g. main's) in the same rounds, interleaved.

The commands run with their bytecode cached (in a temporary PYTHONPYCACHEPREFIX), as an
installed package's is: with PYTHONDONTWRITEBYTECODE set, every start compiles each module.

`--tier` instead runs the fast test tier (`pytest -m "not process" -q`) once from the
checkout and prints its wall time, its summary line and the load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TRACEGRADE = str(Path(sys.executable).with_name("tracegrade"))
EXAMPLE = "examples/home_automation"
# Each command's arguments (DB: the small database's path) and its target in seconds.
COMMANDS: dict[str, tuple[list[str], float]] = {
    "--version": (["--version"], 0.3),
    "runs": (["runs", "--db", "DB"], 0.7),
    'sql "select 1"': (["sql", "select 1", "--db", "DB"], 0.7),
    "report": (["report", "--db", "DB"], 0.7),  # exits 1: the example fails 2 cases on purpose
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--against", help="another build's tracegrade, timed in the same rounds")
    parser.add_argument("--tier", action="store_true", help="time the fast test tier instead")
    args = parser.parse_args()
    print(f"load {_load()}")
    if args.tier:
        _tier()
    else:
        builds = {"this": TRACEGRADE, **({"against": args.against} if args.against else {})}
        _startup(builds, args.rounds)
    print(f"load {_load()}")


def _startup(builds: dict[str, str], rounds: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        db = str(Path(folder) / "small.duckdb")
        env = _env(Path(folder) / "pycache")
        example = [TRACEGRADE, "run", EXAMPLE, "--agent", EXAMPLE, "--db", db]
        subprocess.run(example, env=env, cwd=ROOT, capture_output=True, check=False)  # exits 1
        times: dict[tuple[str, str], list[float]] = {}
        for round_ in range(rounds + 1):  # round 0 warms the bytecode cache, untimed
            for command, (arguments, _) in COMMANDS.items():
                for build, exe in builds.items():
                    took = _time([exe, *(db if a == "DB" else a for a in arguments)], env)
                    if round_:
                        times.setdefault((build, command), []).append(took)
    print(f"{'build':8} {'command':16} {'median s':>8} {'range s':>12} {'target':>7}  met")
    for (build, command), taken in times.items():
        target = COMMANDS[command][1]
        median = statistics.median(taken)
        spread = f"{min(taken):.2f}-{max(taken):.2f}"
        met = "yes" if median < target else "no"
        print(f"{build:8} {command:16} {median:8.2f} {spread:>12} {target:7.1f}  {met}")
    print(f"{rounds} rounds, each command a new process until it exits")


def _env(pycache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPYCACHEPREFIX": str(pycache), "HOME_AGENT_MODEL": "scripted"}


def _time(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True)
    took = time.perf_counter() - start
    if done.returncode not in (0, 1):  # 1: the report's gate failed, as the example's does
        sys.exit(f"{' '.join(command)} exited {done.returncode}: {done.stderr[-2000:]}")
    return took


def _tier() -> None:
    command = [sys.executable, "-m", "pytest", "-m", "not process", "-q", "-p", "no:cacheprovider"]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    took = time.perf_counter() - start
    lines = done.stdout.strip().splitlines()
    met = "met" if took < 180 else "not met"
    print(
        f"fast tier (pytest -m 'not process'): {took:.0f} s wall on {os.cpu_count()} cores, "
        f"exit {done.returncode} (target under 180 s: {met})"
    )
    print(lines[-1] if lines else done.stderr[-2000:])


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    main()
