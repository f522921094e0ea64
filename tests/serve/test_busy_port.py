"""`tracegrade serve` on a port another process holds fails at once and writes nothing."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import pytest

from tests.serve.helpers import TRACEGRADE, free_port
from tests.support.cli import one_line_error
from tracegrade.exit_codes import ExitCode


@pytest.mark.parametrize("busy", ["http", "grpc"])
def test_a_busy_port_leaves_no_database_behind(tmp_path: Path, busy: str) -> None:
    db = tmp_path / "serve.duckdb"
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        ports = (
            {"http": taken, "grpc": free_port()}
            if busy == "http"
            else {"http": free_port(), "grpc": taken}
        )
        done = subprocess.run(
            [TRACEGRADE, "serve", "--db", str(db), "--port", str(ports["http"]),
             "--grpc-port", str(ports["grpc"])],
            capture_output=True, text=True, timeout=60, env={**os.environ},
        )  # fmt: skip

    assert done.returncode == ExitCode.USAGE_ERROR
    assert one_line_error(done.stderr) == (
        f"tracegrade: cannot listen on 127.0.0.1:{taken}: Address already in use"
    )
    assert list(tmp_path.iterdir()) == []
