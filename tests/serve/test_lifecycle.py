"""Start, discovery, the log line, and a graceful stop that flushes what it acknowledged."""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
from pathlib import Path

from tests.support.span_factory import adk_like_spans
from tracegrade.remote import RemoteDatabase, find_server, sidecar_path
from tracegrade.store import connect

from .helpers import PROTOBUF, TRACEGRADE, Server, free_port, ids_of, protobuf, start_server


def test_sidecar_discovery_and_removal_on_sigterm(workdir: Path) -> None:
    server = start_server(workdir, "--grpc-port", "0")  # 0: no gRPC
    sidecar = sidecar_path(server.db)
    written = json.loads(sidecar.read_text())
    assert written == {
        "pid": server.process.pid,
        "url": server.url,
        "token_required": False,
        "db": str(server.db.resolve()),
        "grpc_port": None,
        "tls_cert": None,
    }
    assert "OTLP/gRPC" not in server.stderr()
    found = find_server(server.db)
    assert found is not None
    assert found.url == server.url
    assert RemoteDatabase.for_server(found).query("SELECT count(*) FROM spans") == (
        ["count_star()"],
        [[0]],
    )
    assert server.stop(signal.SIGTERM) == 0
    assert not sidecar.exists()
    assert find_server(server.db) is None


def test_a_dead_servers_sidecar_is_ignored(workdir: Path) -> None:
    db = workdir / "x.duckdb"
    sidecar_path(db).write_text(json.dumps(
        {"pid": 2**22 + 7, "url": "http://127.0.0.1:9", "token_required": False, "db": str(db)}
    ))  # fmt: skip
    assert find_server(db) is None


def test_sigterm_flushes_everything_acknowledged(workdir: Path) -> None:
    server = start_server(workdir)
    spans = adk_like_spans(1000, seed=80)  # 5,000 spans
    batches = [spans[i : i + 200] for i in range(0, len(spans), 200)]
    acknowledged: list[int] = []
    other: list[int] = []
    lock = threading.Lock()

    def send(indices: range) -> None:
        for index in indices:
            try:
                status = server.post("/v1/traces", protobuf(batches[index]), PROTOBUF, 10).status
            except OSError:
                status = 0
            with lock:
                (acknowledged if status == 200 else other).append(index)

    threads = [threading.Thread(target=send, args=(range(i, len(batches), 4),)) for i in range(4)]
    for thread in threads:
        thread.start()
    while len(acknowledged) < 6:
        time.sleep(0.001)
    started = time.monotonic()
    assert server.stop(signal.SIGTERM) == 0
    assert time.monotonic() - started < 30
    for thread in threads:
        thread.join(30)
    assert other, "every request finished before SIGTERM: the test did not stop mid-stream"
    connection = connect(server.db, read_only=True)
    try:
        stored = set(connection.execute("SELECT trace_id, span_id FROM spans").fetchall())
    finally:
        connection.close()
    for index in acknowledged:
        assert ids_of(batches[index]) <= stored, f"batch {index} acknowledged but not stored"
    # Requests in progress at SIGTERM were finished and answered, not cut off after their commit.
    committed = {index for index, batch in enumerate(batches) if ids_of(batch) & stored}
    assert committed == set(acknowledged)
    assert "stopped in" in server.stderr()


def test_a_log_line_of_ingest_figures(workdir: Path) -> None:
    server = start_server(workdir, "--log-interval", "1")
    try:
        assert (
            server.post("/v1/traces", protobuf(adk_like_spans(3, seed=81)), PROTOBUF).status == 200
        )
        assert server.post("/v1/traces", b"junk", PROTOBUF).status == 400
        deadline = time.monotonic() + 15
        while "15 spans stored" not in server.stderr() and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        assert server.stop(signal.SIGINT) == 0  # Ctrl-C stops as cleanly as SIGTERM
    assert not sidecar_path(server.db).exists()
    line = next(line for line in server.stderr().splitlines() if "15 spans stored," in line)
    assert "tracegrade.serve" in line
    assert "2 requests" in line
    assert "1 4xx" in line
    assert "queue 0 spans" in line


def test_a_second_server_on_the_same_database_says_who_holds_it(server: Server) -> None:
    second = subprocess.run(
        [TRACEGRADE, "serve", "--db", str(server.db), "--port", str(free_port()),
         "--grpc-port", "0"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert second.returncode == 2
    assert f"locked by process {server.process.pid}" in second.stderr
    assert "it is being served" in second.stderr
    assert "Traceback" not in second.stderr
    assert find_server(server.db) is not None, "the failed start removed the live sidecar"


def test_a_taken_port_is_a_clear_error(server: Server, workdir: Path) -> None:
    taken = subprocess.run(
        [TRACEGRADE, "serve", "--db", str(workdir / "other.duckdb"), "--port", str(server.port),
         "--grpc-port", "0"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert taken.returncode == 2
    assert f"cannot listen on 127.0.0.1:{server.port}" in taken.stderr
    assert not sidecar_path(workdir / "other.duckdb").exists()
