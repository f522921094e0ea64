"""`tracegrade serve`'s application in this process: its real parts (receiver, writer, SQL and
scoring endpoints on a real DuckDB file) driven through ASGI calls, with no socket and no
process. For what a request's answer shows; signals, ports and kill -9 need `start_server`.

It answers as `tests.serve.helpers.Server` does (`post`, `sql`, `rows`, `health`), so a test
of plain requests moves between the two by its fixture."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.serve.helpers import JSON, Reply
from tests.support.new_database import new_database
from tracegrade.server.asgi import HttpApp, Message
from tracegrade.server.config import ServeConfig
from tracegrade.server.memory import MIB, MemoryBudget
from tracegrade.server.parts import Parts
from tracegrade.store import SpanWriter
from tracegrade.store.readonly import lock_down


class ServeApp:
    """One serve's parts on `db`, started; `close()` stops them as serve stops."""

    def __init__(self, db: Path, token: str | None = None) -> None:
        self.db = db
        self.config = ServeConfig(db=db, grpc_port=0, token=token)
        self.auth = {"authorization": f"Bearer {token}"} if token else {}
        self._writer = SpanWriter.open(new_database(db))
        lock_down(self._writer.connection)  # as serve locks its connection: SQL cannot undo it
        self._parts = Parts.build(
            self.config, self._writer, MemoryBudget(self.config.memory_mb * MIB)
        )
        self._parts.start()
        self._app: HttpApp = self._parts.http_app(str(db.resolve()), tls=False)
        self._loop = asyncio.Runner()

    @property
    def writer(self) -> SpanWriter:
        """serve's one writer (its turn facts: `flush_facts`)."""
        return self._writer

    def __enter__(self) -> ServeApp:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def request(
        self, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
    ) -> Reply:
        sent: list[Message] = self._loop.run(self._call(method, path, body, headers or {}))
        start, answer = sent[0], b"".join(m.get("body", b"") for m in sent[1:])
        names = {k.decode("latin-1"): v.decode("latin-1") for k, v in start["headers"]}
        return Reply(start["status"], names, answer)

    async def _call(
        self, method: str, path: str, body: bytes, headers: dict[str, str]
    ) -> list[Message]:
        path, _, query = path.partition("?")
        host = {"host": f"127.0.0.1:{self.config.port}"}
        scope = {
            "type": "http", "method": method, "path": path, "raw_path": path.encode(),
            "query_string": query.encode(), "scheme": "http",
            "headers": [(k.lower().encode(), v.encode()) for k, v in {**host, **headers}.items()],
        }  # fmt: skip
        sent: list[Message] = []
        answered = asyncio.Event()
        parts = [{"type": "http.request", "body": body, "more_body": False}]

        async def receive() -> Message:
            if parts:
                return parts.pop()
            await answered.wait()  # as uvicorn: after the body, only a disconnect comes
            return {"type": "http.disconnect"}

        async def send(message: Message) -> None:
            sent.append(message)
            if message["type"] == "http.response.body" and not message.get("more_body"):
                answered.set()

        await self._app(scope, receive, send)
        return sent

    def post(self, path: str, body: bytes, headers: dict[str, str] | None = None) -> Reply:
        return self.request("POST", path, body, {**self.auth, **(headers or {})})

    def health(self) -> Reply:
        return self.request("GET", "/health")

    def sql(self, query: str, params: Sequence[Any] | None = None, **extra: Any) -> Reply:
        document = {"sql": query, **({"params": list(params)} if params is not None else {})}
        return self.post("/v1/sql", json.dumps({**document, **extra}).encode(), JSON)

    def rows(self, query: str, params: Sequence[Any] | None = None) -> list[list[Any]]:
        reply = self.sql(query, params)
        assert reply.status == 200, reply.body
        rows: list[list[Any]] = reply.json()["rows"]
        return rows

    def close(self) -> None:
        self._parts.begin_shutdown()
        self._parts.stop(time.monotonic() + 30)
        self._loop.close()
        self._writer.close()
