"""The archive's schema version, stated in every file and in `<root>/_schema.json`.

Version 1 (tracegrade before this) stored the JSON columns with Parquet's JSON logical
type, which polars reads as Binary and pyarrow as its `arrow.json` extension type; version
2 stores them as plain UTF-8 strings, read as strings by every engine (the views cast them
to JSON on read, so both versions read the same). The schema evolves by adding columns
only, never by renaming, retyping or dropping one, so a reader of version N reads every
older file: DuckDB with `union_by_name = true`, Spark with `mergeSchema = true` (without it
Spark takes one file's columns and drops a column added later), pyarrow by giving the
newest schema. `_schema.json` names the version, the columns and the partition types, so
a reader can pass them instead of inferring (pyarrow infers `day` as a string).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 2
SCHEMA_KEY = "tracegrade.archive_schema"
SCHEMA_FILE = "_schema.json"
# The stored columns and their Parquet types (every column is nullable in Parquet).
_STRING, _NS = "string", "int64 (Unix epoch ns)"
COLUMNS: dict[str, str] = {
    "trace_id": _STRING,
    "span_id": _STRING,
    "parent_span_id": _STRING,
    "name": _STRING,
    "kind": _STRING,
    "start_ns": _NS,
    "end_ns": _NS,
    "status_code": _STRING,
    "status_message": _STRING,
    "service_name": _STRING,
    "scope_name": _STRING,
    "scope_version": _STRING,
    **dict.fromkeys(("attributes", "resource", "events", "links"), "string (JSON text)"),
    "source": _STRING,
    "ingested_at": "timestamp[us, UTC]",
}
PARTITIONS = {"shard": "string", "day": "date (YYYY-MM-DD)", "hour": "int32 (UTC, 0-23)"}
JSON_COLUMNS = ("attributes", "resource", "events", "links")


def kv_metadata() -> str:
    """The COPY option that stamps a file with its schema version."""
    return f"KV_METADATA {{'{SCHEMA_KEY}': '{SCHEMA_VERSION}'}}"


def write_schema_file(root: Path) -> None:
    """Write (or bring up to date) `<root>/_schema.json`; whole or not at all."""
    path = root / SCHEMA_FILE
    text = json.dumps(_document(), indent=2) + "\n"
    try:
        if path.read_text() == text:
            return
    except FileNotFoundError:
        pass
    aside = path.with_name(f".{SCHEMA_FILE}.{os.getpid()}.tmp")
    aside.write_text(text)
    os.replace(aside, path)


def _document() -> dict[str, Any]:
    return {
        "archive_schema": SCHEMA_VERSION,
        "layout": "shard=<shard>/day=<YYYY-MM-DD>/hour=<H>/<batch>.parquet",
        "columns": COLUMNS,
        "partitions": PARTITIONS,
        "evolution": "columns are only ever added: read with union_by_name (DuckDB) or "
        "mergeSchema=true (Spark); files state their version in key-value metadata "
        f"'{SCHEMA_KEY}' (none: version 1, JSON columns with the JSON logical type)",
    }
