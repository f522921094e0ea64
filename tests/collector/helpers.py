"""A real OpenTelemetry Collector running a file of collector-config/ unchanged, in front of real
`tracegrade serve` processes, all on 127.0.0.1.

The configs read their addresses from `${env:...}` (defaulting to the compose values), so a test
sets those to free loopback ports. Every wait has a deadline: a process that hangs fails the test.
"""

from __future__ import annotations

import os
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.serve.helpers import TRACEGRADE, Server, free_port, wait_healthy

ROOT = Path(__file__).parents[2]
CONFIG_DIR = ROOT / "collector-config"
TOKEN = "collector-test-token"


@dataclass
class Collector:
    process: subprocess.Popen[bytes]
    grpc_port: int
    http_port: int
    health_port: int
    log: Path

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    def stderr(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self, timeout: float = 60) -> None:
        """SIGTERM, so the exporters flush what they hold; SIGKILL if that takes too long."""
        if self.process.poll() is None:
            self.process.terminate()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


_NO_OWN_METRICS = "service:\n  telemetry:\n    metrics:\n      level: none\n"


def start_collector(binary: Path, config: str, workdir: Path, env: dict[str, str]) -> Collector:
    grpc_port, http_port, health_port = free_port(), free_port(), free_port()
    environ = {
        **os.environ,
        "TRACEGRADE_TOKEN": TOKEN,
        "COLLECTOR_OTLP_GRPC_ENDPOINT": f"127.0.0.1:{grpc_port}",
        "COLLECTOR_OTLP_HTTP_ENDPOINT": f"127.0.0.1:{http_port}",
        "COLLECTOR_HEALTH_ENDPOINT": f"127.0.0.1:{health_port}",
        # The configs are sized for a 2 GiB container; keep the Go heap below the limiter's.
        "GOMEMLIMIT": "1229MiB",
        **env,
    }
    log = workdir / f"collector-{http_port}.log"
    # The Collector's own metrics listen on localhost:8888 by default, which two Collectors
    # (tests on two workers, or a developer's own) cannot share; they are not under test.
    quiet = workdir / f"collector-{http_port}-no-own-metrics.yaml"
    quiet.write_text(_NO_OWN_METRICS)
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            [str(binary), f"--config={CONFIG_DIR / config}", f"--config={quiet}"],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            env=environ,
        )
    collector = Collector(process, grpc_port, http_port, health_port, log)
    _wait_ready(collector)
    return collector


def _wait_ready(collector: Collector, timeout: float = 60) -> None:
    """health_check answers 200 once every pipeline has started."""
    deadline = time.monotonic() + timeout
    url = f"http://127.0.0.1:{collector.health_port}/"
    while time.monotonic() < deadline:
        if collector.process.poll() is not None:
            raise AssertionError(f"the collector exited: {collector.stderr()}")
        try:
            with urllib.request.urlopen(url, timeout=5) as reply:
                if reply.status == 200:
                    return
        except (OSError, urllib.error.URLError):
            pass
        time.sleep(0.2)
    collector.stop()
    raise AssertionError(f"the collector was not ready within {timeout} s: {collector.stderr()}")


def start_serve(workdir: Path, db: Path, port: int, grpc_port: int, *args: str) -> Server:
    """`tracegrade serve` with the test token on given ports (a restart reuses them)."""
    environ = {**os.environ, "TRACEGRADE_TOKEN": TOKEN}
    log = workdir / f"serve-{port}.log"
    command = [TRACEGRADE, "serve", "--db", str(db), "--port", str(port)]
    command += ["--grpc-port", str(grpc_port), *args]
    with log.open("ab") as stderr:
        process = subprocess.Popen(command, stderr=stderr, stdout=subprocess.DEVNULL, env=environ)
    server = Server(process, db, port, grpc_port, log, TOKEN, {"authorization": f"Bearer {TOKEN}"})
    wait_healthy(server, timeout=60)
    return server


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout} s")
        time.sleep(0.5)
