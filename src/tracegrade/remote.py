"""Reaching a database that `tracegrade serve` holds: discovery, and a read-only SQL client.

DuckDB lets one process write a file. While `tracegrade serve` has it, the server writes
a sidecar `<db>.serve.json` (its pid, URL, and whether a token is needed, never the token)
and removes it on a clean exit. `find_server()` reads the sidecar and checks that the
process lives and answers; `RemoteDatabase` then runs SELECTs through the server.

A serve with TLS records its certificate's path in the sidecar: a client that found it
there trusts that one certificate (its first in the file) and no other, whatever name it
is for, since the sidecar's loopback URL rarely is the certificate's name. A URL given by
hand is checked as browsers do, against the system's CAs plus `$TRACEGRADE_CA_CERT`.

Standard library only: commands that merely query must not pull in the server's stack.
"""

from __future__ import annotations

import json
import os
import re
import ssl
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tracegrade.errors import DatabaseError, NothingSelected

SIDECAR_SUFFIX = ".serve.json"
TOKEN_ENV = "TRACEGRADE_TOKEN"
CA_CERT_ENV = "TRACEGRADE_CA_CERT"
_PEM_CERT = re.compile(r"-----BEGIN CERTIFICATE-----.+?-----END CERTIFICATE-----", re.DOTALL)


class RemoteError(DatabaseError):
    """The server refused or failed a query, or could not be reached."""


@dataclass(frozen=True)
class ServerInfo:
    """What the sidecar says about the `tracegrade serve` holding a database."""

    pid: int
    url: str
    """Base URL of the HTTP port, e.g. http://127.0.0.1:4318 (SQL at /v1/sql)."""
    token_required: bool
    db: str
    grpc_port: int | None = None
    tls_cert: str | None = None
    """The certificate (PEM) serve answers HTTPS with; None without TLS."""

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2)


def sidecar_path(db: str | os.PathLike[str]) -> Path:
    path = Path(db).expanduser().resolve()
    return path.with_name(path.name + SIDECAR_SUFFIX)


def read_sidecar(db: str | os.PathLike[str]) -> ServerInfo | None:
    """What the sidecar says, or None if there is none or it is damaged."""
    try:
        return load_sidecar(db)
    except DatabaseError:
        return None


def load_sidecar(db: str | os.PathLike[str]) -> ServerInfo | None:
    """What the sidecar says, or None if there is none; DatabaseError if it is damaged."""
    path = sidecar_path(db)
    try:
        text = path.read_text()
    except OSError:
        return None
    try:
        info = ServerInfo(**json.loads(text))
    except (ValueError, TypeError) as exc:
        raise _damaged_sidecar(path, f"not the JSON serve writes: {exc}") from None
    problem = _sidecar_problem(info)
    if problem:
        raise _damaged_sidecar(path, problem)
    return info


def _sidecar_problem(info: ServerInfo) -> str | None:
    # A pid of 0 or -1 would make os.kill() signal a whole process group, or every process;
    # pid_t is 32 bits.
    if not isinstance(info.pid, int) or isinstance(info.pid, bool) or not 0 < info.pid < 2**31:
        return f"pid {info.pid!r} is not a process id"
    if not isinstance(info.url, str) or not info.url.startswith(("http://", "https://")):
        return f"url {info.url!r} is not an http URL"
    if not isinstance(info.db, str):
        return f"db {info.db!r} is not a path"
    if info.tls_cert is not None and not isinstance(info.tls_cert, str):
        return f"tls_cert {info.tls_cert!r} is not a path"
    return None


def _damaged_sidecar(path: Path, problem: str) -> DatabaseError:
    return DatabaseError(
        f"{path} is damaged ({problem}): delete it; a running `tracegrade serve` writes it "
        "again when restarted, or reach the server with --server URL"
    )


def find_server(db: str | os.PathLike[str], timeout_s: float = 2.0) -> ServerInfo | None:
    """The live server holding `db`, or None (no sidecar, process gone, or not answering).

    A damaged sidecar is a DatabaseError saying so: it is met only when the file is locked,
    and then it is what stands between the command and the server."""
    info = load_sidecar(db)
    if info is None or not _alive(info.pid):
        return None
    try:
        context = tls_context(info.url, info.tls_cert)
        health = _request(f"{info.url}/health", None, None, timeout_s, context)
    except RemoteError:
        return None
    # A recycled pid could belong to another process, and another server could answer at
    # the URL: the server answering must be the process that wrote the sidecar.
    if health.get("pid") != info.pid:
        return None
    return info


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


@dataclass(frozen=True)
class QueryResult:
    columns: list[str]
    types: list[str]
    rows: list[list[Any]]
    truncated: bool


class RemoteDatabase:
    """Read-only SQL through a `tracegrade serve` (POST /v1/sql)."""

    def __init__(
        self,
        url: str,
        token: str | None = None,
        timeout_s: float = 120.0,
        *,
        pinned_cert: str | None = None,
    ) -> None:
        self.url = url.rstrip("/")
        self._token = token if token is not None else os.environ.get(TOKEN_ENV) or None
        self._timeout_s = timeout_s
        self._tls = tls_context(self.url, pinned_cert)

    @classmethod
    def for_server(cls, info: ServerInfo, token: str | None = None) -> RemoteDatabase:
        return cls(info.url, token, pinned_cert=info.tls_cert)

    def query(
        self, sql: str, params: list[Any] | None = None, *, limit: int | None = None
    ) -> tuple[list[str], list[list[Any]]]:
        """Columns and rows of one SELECT; raises `RemoteError` if the rows were capped."""
        result = self.execute(sql, params, limit=limit)
        if result.truncated and limit is None:
            raise RemoteError(
                f"the result has more than the server's {len(result.rows)} row limit: "
                "narrow the query, or aggregate in SQL"
            )
        return result.columns, result.rows

    def score(self, request: dict[str, Any]) -> dict[str, Any]:
        """Have the server score what `request` selects (see tracegrade.scoring.stored)."""
        return _request(f"{self.url}/v1/score", request, self._token, self._timeout_s, self._tls)

    def execute(
        self, sql: str, params: list[Any] | None = None, *, limit: int | None = None
    ) -> QueryResult:
        body: dict[str, Any] = {"sql": sql}
        if params is not None:
            body["params"] = params
        if limit is not None:
            body["limit"] = limit
        document = _request(f"{self.url}/v1/sql", body, self._token, self._timeout_s, self._tls)
        return QueryResult(
            document["columns"], document["types"], document["rows"], document["truncated"]
        )


def tls_context(url: str, pinned_cert: str | None = None) -> ssl.SSLContext | None:
    """How to check the server's certificate: None for http; the one certificate in
    `pinned_cert` (the sidecar's); else the system's CAs and `$TRACEGRADE_CA_CERT`."""
    if not url.startswith("https://"):
        return None
    if pinned_cert is not None:
        return _pinned(pinned_cert)
    context = ssl.create_default_context()
    extra = os.environ.get(CA_CERT_ENV)
    if extra:
        try:
            context.load_verify_locations(cafile=extra)
        except (OSError, ssl.SSLError) as exc:
            raise RemoteError(f"${CA_CERT_ENV} {extra}: not a readable PEM file: {exc}") from None
    return context


def _pinned(path: str) -> ssl.SSLContext:
    """Trusts exactly the first certificate of `path`: no CA, no other name."""
    try:
        found = _PEM_CERT.search(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise RemoteError(f"the server's certificate {path}: cannot read it: {exc}") from None
    if found is None:
        raise RemoteError(f"the server's certificate {path}: no PEM certificate in it")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False  # the one certificate is the check, not its name
    context.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN  # a leaf as its own anchor
    try:
        context.load_verify_locations(cadata=found.group(0))
    except ssl.SSLError as exc:
        raise RemoteError(f"the server's certificate {path}: not a certificate: {exc}") from None
    return context


def _request(
    url: str,
    body: dict[str, Any] | None,
    token: str | None,
    timeout_s: float,
    context: ssl.SSLContext | None,
) -> dict[str, Any]:
    headers = {"content-type": "application/json"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout_s, context=context) as response:
            document: dict[str, Any] = json.load(response)
            return document
    except urllib.error.HTTPError as exc:
        document = _error_document(exc)
        if document.get("reason") == NothingSelected.reason:
            # Not a failure of the request: the server's words, as a local scoring says them.
            raise NothingSelected(str(document.get("error"))) from None
        raise RemoteError(f"{url}: {exc.code} {document.get('error', exc.reason)}") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise RemoteError(f"cannot reach tracegrade serve at {url}: {exc}") from None


def _error_document(exc: urllib.error.HTTPError) -> dict[str, Any]:
    """The server's JSON error ({"error", maybe "reason"}); empty when it sent none."""
    try:
        document = json.loads(exc.read())
    except (ValueError, OSError):
        return {}
    return document if isinstance(document, dict) and "error" in document else {}
