"""How big the HTML pages get: the example run's file, and a 10k-turn run's file and live page.

    .venv/bin/python bench/pages/run.py [--turns 10000]

Runs examples/home_automation once (13 turns, 11 cases, 2 failing on purpose), then makes a
large run of the same shape by copying its turns' traces in SQL: each copy gets new trace ids
and its cases new ids (`<case>-<copy>`), so the large run has `--turns` turns, its failing
cases failing as the example's do. It is scored with `tracegrade score --run`, and its page
written with `tracegrade report --html`. Prints sizes (raw and gzipped), times and the
machine's load (/proc/loadavg): the page of a large run must stay small, because the file
shows the worst cases and turns in full and aggregates the rest (PageLimits).
"""

from __future__ import annotations

import argparse
import gzip
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

from tracegrade.store import connect

ROOT = Path(__file__).resolve().parents[2]
TRACEGRADE = str(Path(sys.executable).with_name("tracegrade"))
EXAMPLE = "examples/home_automation"

# The example's turn traces, and its eval_case spans (which hold the expected turns), copied
# `copies` times at once: new trace ids (span ids, for the shared run trace) and case ids.
_NEW_CASE = (
    'regexp_replace(attributes::VARCHAR, \'("tracegrade.case_id": ?"[^"]*)"\', '
    "'\\1-' || k || '\"')::JSON"
)
_REST = "resource, events, links, ingested_at, source"
_KEEP = (
    "parent_span_id, name, kind, start_ns, end_ns, status_code, status_message, "
    "service_name, scope_name, scope_version"
)
# `attrs` is derived from the new attributes as the span writer derives it (tg_span_attrs).
COPY = f"""
CREATE TEMP TABLE originals AS SELECT * FROM spans;
INSERT INTO spans
SELECT substr(md5(trace_id || k), 1, 32), span_id, {_KEEP}, {_NEW_CASE}, {_REST},
    tg_span_attrs({_NEW_CASE})
FROM originals, range(1, $copies + 1) r(k)
WHERE trace_id IN (SELECT trace_id FROM originals WHERE name = 'tracegrade.eval_turn');
INSERT INTO spans
SELECT trace_id, substr(md5(span_id || k), 1, 16), {_KEEP}, {_NEW_CASE}, {_REST},
    tg_span_attrs({_NEW_CASE})
FROM originals, range(1, $copies + 1) r(k)
WHERE name = 'tracegrade.eval_case';
"""  # noqa: S608 — constant column lists, no input


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=10_000)
    args = parser.parse_args()
    print(f"load average before: {Path('/proc/loadavg').read_text().split()[:3]}")
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "pages.duckdb"
        _example(db)
        _measure("example run", db, Path(folder) / "example.html")
        copies = _grow(db, args.turns)
        _tracegrade("score", "--run", _run_id(db), "--db", str(db), check=False)  # gate: 1
        _measure(f"{copies + 1}x the example", db, Path(folder) / "large.html")
    print(f"load average after: {Path('/proc/loadavg').read_text().split()[:3]}")


def _example(db: Path) -> None:
    env = {**os.environ, "HOME_AGENT_MODEL": "scripted"}
    run = [TRACEGRADE, "run", EXAMPLE, "--agent", EXAMPLE, "--db", str(db)]
    subprocess.run(run, env=env, cwd=ROOT, capture_output=True, check=False)  # exits 1


def _grow(db: Path, turns: int) -> int:
    """Copies of the example's turns until the run has `turns`; how many copies."""
    connection = connect(db)  # with the macros the copy uses
    try:
        (have,) = connection.execute(
            "SELECT count(*) FROM spans WHERE name = 'tracegrade.eval_turn'"
        ).fetchone() or (0,)
        copies = max(0, -(-turns // have) - 1)
        started = time.perf_counter()
        for statement in COPY.split(";\n"):
            if statement.strip():
                connection.execute(
                    statement, {"copies": copies} if "$copies" in statement else None
                )
        seconds = time.perf_counter() - started
        print(f"copied the example's {have} turns {copies} times in {seconds:.1f} s")
    finally:
        connection.close()
    return copies


def _run_id(db: Path) -> str:
    connection = duckdb.connect(str(db), read_only=True)
    try:
        (run_id,) = connection.execute(
            "SELECT attributes->>'tracegrade.run_id' FROM spans WHERE name = 'tracegrade.eval_run'"
        ).fetchone() or ("",)
    finally:
        connection.close()
    return str(run_id)


def _measure(label: str, db: Path, html: Path) -> None:
    started = time.perf_counter()
    _tracegrade("report", "latest", "--db", str(db), "--html", str(html), check=False)
    seconds = time.perf_counter() - started
    data = html.read_bytes()
    connection = duckdb.connect(str(db), read_only=True)
    try:
        (turns, cases) = connection.execute(
            "SELECT count(*), count(DISTINCT (eval_set_id, case_id)) FROM turns"
        ).fetchone() or (0, 0)
    finally:
        connection.close()
    print(
        f"{label}: {turns:,} turns, {cases:,} cases: report --html {len(data) / 1024:,.0f} KiB "
        f"({len(gzip.compress(data)) / 1024:,.0f} KiB gzipped) in {seconds:.1f} s "
        f"(with the CLI's start and the scoring lookup)"
    )


def _tracegrade(*args: str, check: bool = True) -> None:
    done = subprocess.run([TRACEGRADE, *args], cwd=ROOT, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise SystemExit(
            f"tracegrade {' '.join(args)} exited {done.returncode}: {done.stderr[-1500:]}"
        )


if __name__ == "__main__":
    main()
