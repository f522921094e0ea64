"""Ingest: OTLP decoding shared by every path, trace files, and the OTLP receiver.

Names load on first use: `tracegrade.ingest.server.config` (the serve defaults the CLI
reads at start-up) must not pull in protobuf decoding.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tracegrade.ingest.files import FileReport, ingest_file, ingest_files
    from tracegrade.ingest.otlp import Decoded, decode_protobuf, decode_request
    from tracegrade.ingest.otlp_json import decode_json

_LAZY = {
    "Decoded": "tracegrade.ingest.otlp",
    "decode_protobuf": "tracegrade.ingest.otlp",
    "decode_request": "tracegrade.ingest.otlp",
    "decode_json": "tracegrade.ingest.otlp_json",
    "FileReport": "tracegrade.ingest.files",
    "ingest_file": "tracegrade.ingest.files",
    "ingest_files": "tracegrade.ingest.files",
}

__all__ = [
    "Decoded",
    "FileReport",
    "decode_json",
    "decode_protobuf",
    "decode_request",
    "ingest_file",
    "ingest_files",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'tracegrade.ingest' has no attribute {name!r}")
