"""Scripts that fork, run in a fresh interpreter with a timeout, so a hang fails a test."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

FORK_HELPERS = """
import hashlib, json, os, sys, time
from opentelemetry.sdk.trace import TracerProvider
from tracegrade.capture import BlockingSpanProcessor, DuckDBSpanExporter

def end_spans(tracer, prefix, n):
    for i in range(n):
        tracer.start_span(f"{prefix}-{i}").end()

def files_digest(db):
    digest = hashlib.sha256()
    for path in (db, db + ".wal"):
        if os.path.exists(path):
            digest.update(open(path, "rb").read())
    return digest.hexdigest()

def wait_child(pid, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    return "hung"
"""


def run_script(script: str, *args: str) -> tuple[list[Any], str]:
    """Run `script` in a fresh interpreter: the JSON lines it prints, and its stderr."""
    done = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()], done.stderr
