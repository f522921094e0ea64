"""Ingest: OTLP decoding shared by every path, and trace files (tracegrade.server receives)."""

from __future__ import annotations

from tracegrade.ingest.files import FileReport, ingest_file, ingest_files
from tracegrade.ingest.otlp import Decoded, decode_protobuf, decode_request
from tracegrade.ingest.otlp_json import decode_json

__all__ = [
    "Decoded",
    "FileReport",
    "decode_json",
    "decode_protobuf",
    "decode_request",
    "ingest_file",
    "ingest_files",
]
