"""OTLP/JSON attribute values that protobuf's JSON parser would let through changed.

OTLP requires receivers to ignore unknown fields, and told to, the parser reads a bare
string or list where an `AnyValue` object belongs as an empty value (it walks the string's
characters as field names); it decodes a `bytesValue` that is not base64 into whatever
comes out (`"!!!!"` gives no bytes at all). Each check here names the value instead, so
its span is refused with the reason rather than stored as something it never was.
"""

from __future__ import annotations

import json
import re
from typing import Any

# Protobuf's JSON mapping takes standard or URL-safe base64, padded or not.
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]*={0,2}")
# Values the parser reads faithfully: most attributes, checked with one set comparison.
_SCALARS = frozenset(
    f"{kind}{suffix}"
    for kind in ("string", "int", "double", "bool")
    for suffix in ("Value", "_value")
)


def attributes_problem(attributes: Any, what: str = "attribute") -> str | None:
    """The first attribute whose value would not be read as sent, and why; else None."""
    if not isinstance(attributes, list):
        return None  # a wrong shape here is the parser's to refuse
    for pair in attributes:
        if isinstance(pair, dict):
            problem = value_problem(pair.get("value"))
            if problem:
                return f"{what} {pair.get('key')!r}: {problem}"
    return None


def value_problem(value: Any) -> str | None:
    if value is None:
        return None  # an empty value, which OTLP allows
    if isinstance(value, dict) and value.keys() <= _SCALARS:
        return None
    if not isinstance(value, dict):
        shown = json.dumps(value)[:40]
        return f'an AnyValue is an object such as {{"stringValue": "..."}}, not {shown}'
    encoded = _field(value, "bytesValue", "bytes_value")
    if isinstance(encoded, str) and not _is_base64(encoded):
        return f"bytesValue {encoded[:40]!r} is not base64"
    array = _field(value, "arrayValue", "array_value")
    if isinstance(array, dict) and isinstance(array.get("values"), list):
        for item in array["values"]:
            problem = value_problem(item)
            if problem:
                return problem
    kvlist = _field(value, "kvlistValue", "kvlist_value")
    if isinstance(kvlist, dict):
        return attributes_problem(kvlist.get("values"), "key")
    return None


def _field(value: dict[str, Any], camel: str, snake: str) -> Any:
    return value.get(camel, value.get(snake))


def _is_base64(text: str) -> bool:
    return _BASE64.fullmatch(text) is not None and len(text.rstrip("=")) % 4 != 1
