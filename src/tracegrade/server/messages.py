"""An HTTP request head and a response, independent of the HTTP library that carries them."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

JSON_TYPE = "application/json"


@dataclass(frozen=True)
class RequestHead:
    method: str
    path: str
    headers: dict[str, str]
    """Lower-case names; a repeated header keeps its last value."""
    raw_path: str = ""
    """The path as sent, still percent-encoded: `/` inside an id stays `%2F`."""
    query: str = ""
    scheme: str = "http"

    def header(self, name: str) -> str:
        return self.headers.get(name, "")

    @property
    def content_length(self) -> int | None:
        value = self.headers.get("content-length")
        return int(value) if value and value.isdigit() else None


@dataclass(frozen=True)
class Response:
    status: int
    body: bytes = b""
    content_type: str = JSON_TYPE
    headers: list[tuple[str, str]] = field(default_factory=list)
    close: bool = False
    """Close the connection after this response (the request body may be left unread)."""


def json_response(status: int, document: Any, **extra: Any) -> Response:
    return Response(status, json.dumps(document).encode(), JSON_TYPE, **extra)


def json_error(status: int, message: str, **extra: Any) -> Response:
    return json_response(status, {"error": message}, **extra)


def retry_later(
    status: int,
    message: str,
    retry_after_s: int,
    body: bytes | None = None,
    content_type: str = JSON_TYPE,
) -> Response:
    """429/503: the OTLP exporters retry these, after at least Retry-After seconds."""
    payload = body if body is not None else json.dumps({"error": message}).encode()
    return Response(status, payload, content_type, [("retry-after", str(retry_after_s))])
