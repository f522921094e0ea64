"""`spans.attrs` from the decoded attribute values, as DuckDB would parse it out of the JSON.

The writer stores `attrs` (migration 004: one field per attribute key the views read) with
every span. Parsing it back out of the `attributes` JSON it has just encoded costs DuckDB a
JSON parse per span; the decoder and the exporter hold the values already, so they hand the
writer the fields here. A field must read exactly as `tg_span_attrs` (queries/macros/
00_span_attrs.sql) gives it, so only values whose rendering is certain are taken: strings,
booleans, integers (JSON holds no other kind of integer once encoded: `to_json` refuses one
beyond 64 bits), and lists of plain ASCII strings (a model call's finish reasons). A span
holding any other value under one of these keys (a float, whose JSON spelling is DuckDB's
own; a nested object; a string the JSON field would escape) gets None, and the writer
parses that span's `attrs` from its JSON as before. tests/store/test_span_attrs.py holds
the two equal on every kind of value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from tracegrade._resources import query_text

SpanAttrs = tuple[str | None, ...]
"""The `attrs` fields of one span, in the column's order."""

# One field of the macro's json_transform structure: "key": "VARCHAR" (or "JSON").
_FIELD = re.compile(r'^\s*"([^"]+)": "(VARCHAR|JSON)",?$', re.MULTILINE)
# A string JSON spells as itself between quotes: printable ASCII but `"` and `\`.
_PLAIN = re.compile(r"[ !#-\[\]-~]*")


@lru_cache(maxsize=1)
def attrs_fields() -> tuple[tuple[str, bool], ...]:
    """Each `attrs` field's key and whether it is JSON (else VARCHAR), in the column's order:
    the macro's, which a test holds equal to the column's type."""
    fields = _FIELD.findall(query_text("macros", "span_attrs"))
    return tuple((key, kind == "JSON") for key, kind in fields)


@lru_cache(maxsize=1)
def _positions() -> dict[str, tuple[int, bool]]:
    return {key: (index, is_json) for index, (key, is_json) in enumerate(attrs_fields())}


def span_attrs(attributes: Mapping[str, Any]) -> SpanAttrs | None:
    """The span's `attrs` fields, or None where one of them cannot be rendered for certain."""
    positions = _positions()
    fields: list[str | None] = [None] * len(positions)
    for key, value in attributes.items():
        position = positions.get(key)
        if position is None:
            continue
        index, is_json = position
        rendered = _rendered(value, is_json)
        if rendered is None:
            return None
        fields[index] = rendered
    return tuple(fields)


def _rendered(value: Any, is_json: bool) -> str | None:
    """`value` as `json_transform` reads it into a VARCHAR (or JSON) field; None if unsure."""
    kind = type(value)  # exactly: a subclass (an enum) may encode as something else
    if kind is str:
        text: str = value
        if not is_json:
            return text
        return f'"{text}"' if _PLAIN.fullmatch(text) else None
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return str(value)
    if (kind is list or kind is tuple) and all(
        type(item) is str and _PLAIN.fullmatch(item) for item in value
    ):
        return "[" + ",".join(f'"{item}"' for item in value) + "]"
    return None
