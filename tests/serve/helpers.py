"""A real `tracegrade serve` process on 127.0.0.1, and plain-HTTP (or, given an SSL
context, HTTPS) ways to talk to it.

Every network call has a timeout, so a server that hangs fails the test instead of
stalling the run.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan

from tests.support.otlp import otlp_request

TRACEGRADE = str(Path(sys.executable).with_name("tracegrade"))
PROTOBUF = {"content-type": "application/x-protobuf"}
JSON = {"content-type": "application/json"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def when_scoring_is_free(send: Callable[[], Reply], within_s: float, why: str) -> Reply:
    """`send()` again while serve's one scoring slot is taken (429: an online rule's pass, or
    a scoring before), as a client told to retry does; fails with `why` after `within_s`."""
    deadline = time.monotonic() + within_s
    while (reply := send()).status == 429:
        assert time.monotonic() < deadline, why
        time.sleep(0.1)
    return reply


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    db: Path
    port: int
    grpc_port: int
    log: Path
    token: str | None = None
    auth: dict[str, str] = field(default_factory=dict)
    tls: ssl.SSLContext | None = None
    """How to trust a serve started with --tls-cert; None: plain HTTP."""

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    @property
    def traces_url(self) -> str:
        return f"{self.url}/v1/traces"

    @property
    def grpc_target(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    def post(
        self, path: str, body: bytes, headers: dict[str, str] | None = None, timeout: float = 30
    ) -> Reply:
        headers = {**self.auth, **(headers or {})}
        return request(self.port, "POST", path, body, headers, timeout, self.tls)

    def health(self) -> Reply:
        return request(self.port, "GET", "/health", None, {}, 5, self.tls)

    def sql(self, query: str, params: Sequence[Any] | None = None, **extra: Any) -> Reply:
        document = {
            "sql": query,
            **({"params": list(params)} if params is not None else {}),
            **extra,
        }
        return self.post("/v1/sql", json.dumps(document).encode(), JSON)

    def rows(self, query: str, params: Sequence[Any] | None = None) -> list[list[Any]]:
        reply = self.sql(query, params)
        assert reply.status == 200, reply.body
        rows: list[list[Any]] = reply.json()["rows"]
        return rows

    def ids(self) -> list[tuple[str, str]]:
        """Every stored (trace_id, span_id), duplicates kept: the key is what makes it a set."""
        return [(t, s) for t, s in self.rows("SELECT trace_id, span_id FROM spans")]

    def stop(self, signum: int = signal.SIGTERM, timeout: float = 30) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signum)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(
                f"serve did not exit within {timeout} s of signal {signum}"
            ) from None

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()

    def stderr(self) -> str:
        return self.log.read_text(errors="replace")


def start_server(
    workdir: Path,
    *args: str,
    db: Path | None = None,
    token: str | None = None,
    env: dict[str, str] | None = None,
    wait: bool = True,
    preexec: Callable[[], None] | None = None,
    tls: ssl.SSLContext | None = None,
) -> Server:
    db = db or workdir / "serve.duckdb"
    port, grpc_port = free_port(), free_port()
    environ = {k: v for k, v in os.environ.items() if k != "TRACEGRADE_TOKEN"}
    environ.update(env or {})
    if token is not None:
        environ["TRACEGRADE_TOKEN"] = token
    log = workdir / f"serve-{port}.log"
    command = [TRACEGRADE, "serve", "--db", str(db), "--port", str(port)]
    command += ["--grpc-port", str(grpc_port), *args]
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            command, stderr=stderr, stdout=subprocess.DEVNULL, env=environ, preexec_fn=preexec
        )
    auth = {"authorization": f"Bearer {token}"} if token else {}
    server = Server(process, db, port, grpc_port, log, token, auth, tls)
    if wait:
        wait_healthy(server)
    return server


def wait_healthy(server: Server, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise AssertionError(
                f"serve exited with {server.process.returncode}: {server.stderr()}"
            )
        try:
            if server.health().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.05)
    server.kill()
    raise AssertionError(f"serve was not healthy within {timeout} s: {server.stderr()}")


def request(
    port: int,
    method: str,
    path: str,
    body: bytes | None,
    headers: dict[str, str],
    timeout: float,
    tls: ssl.SSLContext | None = None,
) -> Reply:
    connection = (
        http.client.HTTPSConnection("127.0.0.1", port, timeout=timeout, context=tls)
        if tls
        else http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    )
    try:
        connection.request(method, path, body, headers)
        response = connection.getresponse()
        data = response.read()
        reply_headers = {name.lower(): value for name, value in response.getheaders()}
        return Reply(response.status, reply_headers, data)
    finally:
        connection.close()


def protobuf(spans: Sequence[ReadableSpan]) -> bytes:
    data: bytes = otlp_request(spans).SerializeToString()
    return data


def ids_of(spans: Sequence[ReadableSpan]) -> set[tuple[str, str]]:
    return {(f"{s.context.trace_id:032x}", f"{s.context.span_id:016x}") for s in spans if s.context}
