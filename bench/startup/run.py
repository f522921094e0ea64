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

`--tier` instead runs the fast test tier (`pytest -m "not process" -q -n auto`: one
pytest-xdist worker per core) once from the checkout and prints its wall time, its CPU time,
its summary line and the load.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
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
        small = Path(folder) / "small.duckdb"
        env = _env(Path(folder) / "pycache")
        example = [TRACEGRADE, "run", EXAMPLE, "--agent", EXAMPLE, "--db", str(small)]
        subprocess.run(example, env=env, cwd=ROOT, capture_output=True, check=False)  # exits 1
        dbs = {build: _copy_for(small, build, exe, env) for build, exe in builds.items()}
        times: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for round_ in range(rounds + 1):  # round 0 warms the bytecode cache, untimed
            for command, (arguments, _) in COMMANDS.items():
                for build, exe in builds.items():
                    db = dbs[build]
                    took = _time([exe, *(db if a == "DB" else a for a in arguments)], env)
                    if round_:
                        times.setdefault((build, command), []).append(took)
    print(
        f"{'build':8} {'command':16} {'wall s':>7} {'range s':>11} {'cpu s':>6} {'target':>6}  met"
    )
    for (build, command), taken in times.items():
        target = COMMANDS[command][1]
        walls = [wall for wall, _ in taken]
        median, cpu = statistics.median(walls), statistics.median(c for _, c in taken)
        spread = f"{min(walls):.2f}-{max(walls):.2f}"
        met = "yes" if median < target else "no"
        print(f"{build:8} {command:16} {median:7.2f} {spread:>11} {cpu:6.2f} {target:6.1f}  {met}")
    print(f"{rounds} rounds, medians; each command a new process until it exits; cpu: its own")


def _copy_for(small: Path, build: str, exe: str, env: dict[str, str]) -> str:
    """A copy of the database for each build, brought up to date by it (untimed): another
    build may have migrations this one lacks, and each makes its own views."""
    copy = small.with_name(f"{build}.duckdb")
    shutil.copyfile(small, copy)
    subprocess.run(
        [exe, "db", "upgrade", "--db", str(copy)], env=env, check=True, capture_output=True
    )
    return str(copy)


def _env(pycache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPYCACHEPREFIX": str(pycache), "HOME_AGENT_MODEL": "scripted"}


def _time(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds until the command exits, and its CPU seconds (user + system)."""
    start, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True)
    took, cpu = time.perf_counter() - start, _children_cpu() - cpu
    if done.returncode not in (0, 1):  # 1: the report's gate failed, as the example's does
        sys.exit(f"{' '.join(command)} exited {done.returncode}: {done.stderr[-2000:]}")
    return took, cpu


def _tier() -> None:
    command = [sys.executable, "-m", "pytest", "-m", "not process", "-q", "-p", "no:cacheprovider"]
    command += ["-n", "auto"]  # pytest-xdist, one worker per core: the tier is CPU-bound
    command += ["--durations", "10"]  # the slowest tests kept: the next to mark `costly`
    start, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    took, cpu = time.perf_counter() - start, _children_cpu() - cpu
    lines = done.stdout.strip().splitlines()
    met = "met" if took < 180 else "not met"
    print(
        f"fast tier (pytest -m 'not process' -n auto): {took:.0f} s wall on "
        f"{os.cpu_count()} cores, exit {done.returncode} (target under 180 s: {met}); "
        f"{cpu:.0f} s CPU, its processes' and those they started"
    )
    slowest = [line for line in lines if re.match(r"[0-9.]+s (call|setup|teardown) ", line)]
    print("the slowest tests it kept (tests.support.tiers.costly marks the costly ones):")
    print("\n".join(f"  {line}" for line in slowest))
    print(lines[-1] if lines else done.stderr[-2000:])


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    main()
