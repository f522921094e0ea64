"""Rows of DuckDB's Python values as JSON, for the SQL endpoint's answers."""

from __future__ import annotations

import base64
import datetime
import decimal
import json
import math
import uuid
from typing import Any


def encode_row(row: tuple[Any, ...]) -> bytes:
    try:
        return json.dumps(row, default=_plain, allow_nan=False).encode()
    except ValueError:  # NaN or infinity somewhere: JSON has no such numbers
        return json.dumps(_finite(row), default=_plain).encode()


def _plain(value: Any) -> Any:
    """DuckDB's Python values that JSON lacks, as the nearest JSON value."""
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if isinstance(value, bytes | bytearray | memoryview):
        return base64.b64encode(bytes(value)).decode()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    return str(value)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value
