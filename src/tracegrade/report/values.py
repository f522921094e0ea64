"""Values as a `Reader` hands them over, made plain.

A local DuckDB connection returns JSON columns as text and lists as lists; a remote
read-only endpoint sends the same rows JSON-encoded, so a JSON column may arrive as text
or already decoded, and timestamps as text. The report layer reads every value through
these helpers and never relies on DuckDB's Python types.
"""

from __future__ import annotations

import json
from typing import Any


def as_json(value: Any) -> Any:
    """A JSON column's value, decoded once whichever way it arrived."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value  # plain text in a JSON-ish column: keep it as it is
    return value


def as_dict(value: Any) -> dict[str, Any]:
    decoded = as_json(value)
    return decoded if isinstance(decoded, dict) else {}


def as_list(value: Any) -> list[Any]:
    decoded = as_json(value)
    return list(decoded) if isinstance(decoded, list | tuple) else []


def as_float(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    # A remote endpoint sends NaN and infinities as text: they mean "no number".
    if number != number or abs(number) == float("inf"):
        return None
    # Twelve significant digits: DuckDB's parallel sums end in different last bits from run
    # to run, which would make every report differ from the last.
    return float(f"{number:.12g}")


def as_int(value: Any) -> int | None:
    number = as_float(value)
    return None if number is None else int(number)


def as_str(value: Any) -> str | None:
    return None if value is None else str(value)
