"""One line saying how an actual tool trajectory differs from the expected one.

"expected show_cart() with no args, got show_cart({})", "missing price(item="pear")",
"same calls in a different order". The first difference is named, as a reader would look
for it; the scorer decided pass or fail, this only explains.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from tracegrade.report.formatting import call, compact, plural

Call = dict[str, Any]


def trajectory_reason(expected: list[Call], actual: list[Call], match_type: str) -> str:
    reason = _reason(expected, actual)
    return reason if match_type == "EXACT" else f"{reason} ({match_type} match)"


def _reason(expected: list[Call], actual: list[Call]) -> str:
    names_e, names_a = [c["name"] for c in expected], [c["name"] for c in actual]
    if names_e == names_a:
        for e, a in zip(expected, actual, strict=True):
            if e != a:
                return args_reason(e, a)
        return "the calls match"
    if Counter(names_e) == Counter(names_a):
        return f"same calls in a different order: expected {_names(names_e)}, got {_names(names_a)}"
    return _missing_and_extra(expected, actual)


_ABSENT = object()


def args_reason(expected: Call, actual: Call) -> str:
    name, want, got = expected["name"], expected.get("args"), actual.get("args")
    if got is None:
        return f"{name}: args not captured"
    if want is None:
        return f"expected {name}() with no args, got {call(name, got)}"
    if isinstance(want, dict) and isinstance(got, dict):
        keys = sorted(
            k for k in want.keys() | got.keys() if want.get(k, _ABSENT) != got.get(k, _ABSENT)
        )
        return f"{name}: " + "; ".join(_key_difference(k, want, got) for k in keys)
    return f"expected {call(name, want)}, got {call(name, got)}"


def _key_difference(key: str, want: dict[str, Any], got: dict[str, Any]) -> str:
    if key not in got:
        return f"{key} missing (expected {compact(want[key])})"
    if key not in want:
        return f"unexpected {key}={compact(got[key])}"
    return f"{key} expected {compact(want[key])}, got {compact(got[key])}"


def _missing_and_extra(expected: list[Call], actual: list[Call]) -> str:
    unmatched = Counter(c["name"] for c in actual)
    missing = []
    for c in expected:
        if unmatched[c["name"]]:
            unmatched[c["name"]] -= 1
        else:
            missing.append(call(c["name"], c.get("args")))
    unexpected = []
    for c in actual:  # the first calls of each surplus name count as the unexpected ones
        if unmatched[c["name"]]:
            unmatched[c["name"]] -= 1
            unexpected.append(call(c["name"], c.get("args"), c.get("args") is not None))
    parts = [f"missing {', '.join(missing)}"] if missing else []
    parts += [f"unexpected {', '.join(unexpected)}"] if unexpected else []
    return f"expected {plural(len(expected), 'call')}, got {len(actual)}: {'; '.join(parts)}"


def _names(names: list[str]) -> str:
    return ", ".join(names) or "no calls"
