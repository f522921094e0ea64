"""The servers under test, started fresh, and what /proc says about them."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def cpu_seconds(pid: int) -> float:
    """utime + stime of the process (all its threads), from /proc/<pid>/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def thread_cpu_seconds(pid: int) -> dict[int, float]:
    """utime + stime of each of the process's threads, by thread id (the main thread's is
    the pid): where a server's CPU goes, thread by thread."""
    seconds = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # the thread ended meanwhile
            continue
        seconds[int(task.name)] = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    return seconds


def memory_kib(pid: int, key: str) -> int:
    """VmHWM (peak RSS) or VmRSS of the process, in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise KeyError(key)


def wait_until(check: Callable[[], bool], timeout_s: float, step_s: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if check():
                return True
        except OSError:
            pass
        time.sleep(step_s)
    return False


@dataclass
class Target:
    name: str
    url: str
    """Where OTLP/HTTP requests go (…/v1/traces)."""
    process: subprocess.Popen[bytes]
    count: Callable[[], int]
    """How many spans are queryable now."""

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_tracegrade(
    workdir: Path, python: str, stored_before: int = 0, extra: list[str] | None = None
) -> Target:
    """`tracegrade serve` on a new file, holding `stored_before` spans of random ids first
    (as a store does after days of traffic); `count()` counts the spans sent since."""
    port = free_port()
    db = workdir / "bench.duckdb"
    if stored_before:
        _fill(db, stored_before)
    process = subprocess.Popen(
        [python, "serve", "--db", str(db), "--port", str(port),
         "--grpc-port", "0", *(extra or [])],
        stderr=(workdir / "tracegrade.log").open("wb"),
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"

    def count() -> int:
        request = urllib.request.Request(
            f"{base}/v1/sql",
            data=json.dumps({"sql": "SELECT count(*) FROM spans"}).encode(),
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(json.load(response)["rows"][0][0]) - stored_before

    target = Target("tracegrade", f"{base}/v1/traces", process, count)
    if not wait_until(
        lambda: urllib.request.urlopen(f"{base}/health", timeout=2).status == 200, 60
    ):
        target.stop()
        raise RuntimeError(f"tracegrade serve did not start: see {workdir / 'tracegrade.log'}")
    return target


def _fill(db: Path, spans: int) -> None:
    from tracegrade.store import connect

    connection = connect(db)
    connection.execute(
        "INSERT INTO spans (trace_id, span_id, name, kind, start_ns, end_ns, status_code, "
        "attributes, resource, events, links, source) "
        "SELECT md5(random()::VARCHAR), md5(random()::VARCHAR)[:16], 'call_llm', 'INTERNAL', "
        "i, i + 1000, 'UNSET', '{}', '{}', '[]', '[]', 'bench' FROM range(?) AS t(i)",
        [spans],
    )
    connection.close()


def start_phoenix(workdir: Path, phoenix: str) -> Target:
    """`phoenix serve` on free ports, SQLite in `workdir`; spans counted in its database."""
    port, grpc_port = free_port(), free_port()
    env = {
        **os.environ,
        "PHOENIX_WORKING_DIR": str(workdir),
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(grpc_port),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_TELEMETRY_ENABLED": "false",
    }
    process = subprocess.Popen(
        [phoenix, "serve"], env=env, stdout=subprocess.DEVNULL,
        stderr=(workdir / "phoenix.log").open("wb"),
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"

    def count() -> int:
        database = workdir / "phoenix.db"
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30) as connection:
            return int(connection.execute("SELECT count(*) FROM spans").fetchone()[0])

    target = Target("phoenix", f"{base}/v1/traces", process, count)
    if not wait_until(
        lambda: urllib.request.urlopen(f"{base}/healthz", timeout=2).status == 200, 180, 0.5
    ):
        target.stop()
        raise RuntimeError(f"phoenix did not start: see {workdir / 'phoenix.log'}")
    return target
