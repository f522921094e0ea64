"""Tool arguments in canonical form, so equal arguments compare equal as text.

ADK compares arguments with Python `==` on decoded JSON: key order does not matter,
`3 == 3.0` and `True == 1`, while `"3" != 3` and list order matters. The canonical form
makes exactly those values equal as strings: keys sorted, whole-number floats written as
integers, booleans as 0/1, everything else as is. SQL compares the strings
(`tg_canonical_json`, registered in functions.py).
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode


def canonical_value(value: Any) -> Any:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {str(k): canonical_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [canonical_value(v) for v in value]
    return value


def canonical_args(args: Any) -> str | None:
    """The canonical JSON of decoded arguments; None stays None (no args is not `{}`)."""
    return None if args is None else _dumps(canonical_value(args))


@lru_cache(maxsize=65_536)
def canonical_json(text: str | None) -> str | None:
    """The canonical JSON of a JSON document; text that is not JSON is kept as a string."""
    if text is None:
        return None
    try:
        return canonical_args(json.loads(text))
    except ValueError:
        return _dumps(text)
