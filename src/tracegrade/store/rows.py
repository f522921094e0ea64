"""The row every ingest path writes, and the JSON encoding of OTel values.

The in-process exporter and the OTLP decoder both build `SpanRow`s through the helpers
here, so a span gives the same row whichever way it arrived.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import orjson


class SpanRow(NamedTuple):
    """One `spans` row, in column order (`ingested_at` is filled in by the database)."""

    trace_id: str
    span_id: str
    parent_span_id: str | None
    name: str
    kind: str
    start_ns: int
    end_ns: int
    status_code: str
    status_message: str | None
    service_name: str | None
    scope_name: str | None
    scope_version: str | None
    attributes: str
    resource: str
    events: str
    links: str
    source: str


SPAN_COLUMNS: tuple[str, ...] = SpanRow._fields
INTEGER_COLUMNS = frozenset({"start_ns", "end_ns"})

EMPTY_LIST = "[]"
EMPTY_OBJECT = "{}"

# `start_ns` and `end_ns` are BIGINT, as DuckDB's own nanosecond timestamps are: OTLP's
# uint64 reaches further (to the year 2554), but nothing after 2262-04-11 fits a signed
# 64-bit column, a TIMESTAMP_NS or the duration arithmetic the views do.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def trace_id_hex(value: int) -> str:
    return f"{value:032x}"


def span_id_hex(value: int) -> str:
    return f"{value:016x}"


def time_problem(start_ns: int, end_ns: int) -> str | None:
    """Why a span's times cannot be stored as they are, or None."""
    if INT64_MIN <= start_ns <= INT64_MAX and INT64_MIN <= end_ns <= INT64_MAX:
        return None  # every span but a broken one: spare building the loop's pairs
    for field, value in (("start_time_unix_nano", start_ns), ("end_time_unix_nano", end_ns)):
        if not INT64_MIN <= value <= INT64_MAX:
            return (
                f"{field} {value} is outside the signed 64-bit nanoseconds tracegrade stores "
                "(after 2262-04-11)"
            )
    return None


def to_json(value: Any) -> str:
    """Compact JSON of attribute-like data, spelling what JSON cannot hold as OTLP/JSON does.

    orjson: encoding attributes is most of an exporter's CPU, and orjson takes a third of
    the json module's time. It writes NaN and infinities as null, so any output holding a
    null is encoded again with those spelled "NaN", "Infinity", "-Infinity" (a null is rare:
    only an empty OTLP value gives one). Raises TypeError for what JSON cannot hold at all
    (a lone surrogate, an integer beyond 64 bits).
    """
    try:
        encoded = orjson.dumps(value)
    except TypeError:
        return orjson.dumps(_jsonable(value)).decode()
    if b"null" in encoded:
        return orjson.dumps(_jsonable(value)).decode()
    return encoded.decode()


def attributes_json(attributes: Mapping[str, Any] | None) -> str:
    if not attributes:
        return EMPTY_OBJECT
    return to_json(attributes if isinstance(attributes, dict) else dict(attributes))


def _jsonable(value: Any) -> Any:
    """Bytes become base64 and NaN "NaN" (as in OTLP/JSON); anything else unknown a string."""
    if isinstance(value, float) and not math.isfinite(value):
        # JSON has no NaN or infinity; OTLP/JSON (protobuf's JSON mapping) spells them so.
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, Mapping):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [_jsonable(item) for item in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def event_dict(name: str, time_ns: int, attributes: Mapping[str, Any] | None) -> dict[str, Any]:
    return {"name": name, "time_ns": time_ns, "attributes": dict(attributes or {})}


def link_dict(trace_id: str, span_id: str, attributes: Mapping[str, Any] | None) -> dict[str, Any]:
    return {"trace_id": trace_id, "span_id": span_id, "attributes": dict(attributes or {})}
