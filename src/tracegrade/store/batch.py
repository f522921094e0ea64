"""A batch of span rows as one Arrow table: what the writer appends in one statement.

DuckDB scans Arrow arrays without touching a Python object; a numpy array of Python
strings it converts one object at a time, with the interpreter's lock held. Building the
arrays costs pyarrow the same conversion, once, before the writer's lock is taken.

`attrs` arrives as fields (store.span_attrs), not as JSON to parse again: a row whose fields
could not be rendered for certain has a NULL `attrs` here, and the insert parses that
row's from its `attributes` (`_ATTRS` in store.writer).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from tracegrade.store.rows import INTEGER_COLUMNS, SPAN_COLUMNS, SpanRow
from tracegrade.store.span_attrs import SpanAttrs, attrs_fields

_TYPES = [pa.int64() if name in INTEGER_COLUMNS else pa.string() for name in SPAN_COLUMNS]
_NAMES = [*SPAN_COLUMNS, "attrs"]


def arrow_batch(rows: Sequence[SpanRow]) -> pa.Table:
    """The rows as one table: the `spans` columns, then `attrs` (NULL where not given)."""
    *columns, attrs = zip(*rows, strict=True)
    arrays = [pa.array(values, kind) for values, kind in zip(columns, _TYPES, strict=True)]
    return pa.Table.from_arrays([*arrays, _attrs_array(attrs)], names=_NAMES)


def without(batch: pa.Table, drop: np.ndarray) -> pa.Table:
    """The batch but the rows where `drop` is True."""
    return batch.filter(pa.array(~drop))


def _attrs_array(attrs: Sequence[SpanAttrs | None]) -> pa.StructArray:
    keys = [key for key, _ in attrs_fields()]
    missing = [fields is None for fields in attrs]
    blank = (None,) * len(keys)
    values = zip(*(blank if fields is None else fields for fields in attrs), strict=True)
    children = [pa.array(field, pa.string()) for field in values]
    mask = pa.array(missing, pa.bool_()) if any(missing) else None
    return pa.StructArray.from_arrays(children, names=keys, mask=mask)
