"""The `<db>.serve.json` file that tells other commands this database is being served."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from tracegrade.remote import ServerInfo, read_sidecar, sidecar_path


def http_url(host: str, port: int, tls: bool = False) -> str:
    """A URL local clients can use: a wildcard bind is reached through loopback."""
    scheme = "https" if tls else "http"
    if host in ("", "0.0.0.0"):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"{scheme}://[{host}]:{port}" if ":" in host else f"{scheme}://{host}:{port}"


def write(info: ServerInfo) -> Path:
    """Written whole then renamed into place, so a reader never sees half a file."""
    path = sidecar_path(info.db)
    partial = path.with_name(path.name + f".{os.getpid()}.tmp")
    partial.write_text(info.to_json())
    partial.replace(path)
    return path


def remove(db: str) -> None:
    """Remove the sidecar if it is this process's (a later server may have replaced it)."""
    info = read_sidecar(db)
    if info is not None and info.pid == os.getpid():
        with contextlib.suppress(FileNotFoundError):
            sidecar_path(db).unlink()
