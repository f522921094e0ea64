"""Keys of an eval-set file that ADK's models refuse, found and named.

ADK refuses a file with an unknown key on an invocation, its intermediate data, a message
or a function call (pydantic `extra="forbid"`); such a key is often an expectation in the
wrong place (`expected_tool_use` inside an invocation), which a loader that ignored it
would lose without a word. tracegrade refuses the file as ADK does, naming every such key;
with `ignore_unknown_keys` it loads the file without them and returns one warning for it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from tracegrade.errors import EvalSetError
from tracegrade.evalset.content import ClosedModel
from tracegrade.evalset.schema import EvalSet

OPT_IN = "--ignore-unknown-keys"


@dataclass(frozen=True)
class UnknownKey:
    case_id: str
    where: str
    """Where in the case, e.g. `conversation[0].intermediate_data`."""
    key: str


def unknown_keys(eval_set: EvalSet) -> list[UnknownKey]:
    """Every key ADK would refuse, in file order."""
    return [
        UnknownKey(case.eval_id, where, key)
        for case in eval_set.eval_cases
        for where, model in _models(case, "")
        if isinstance(model, ClosedModel)
        for key in model.unknown_keys()
    ]


def check_unknown_keys(path: Path, eval_set: EvalSet, ignore: bool) -> tuple[str, ...]:
    """Raise `EvalSetError` naming the keys ADK refuses; with `ignore`, the one warning
    to show for the file instead (none when there are no such keys)."""
    found = unknown_keys(eval_set)
    if not found:
        return ()
    first = found[0]
    keys = list(dict.fromkeys(k.key for k in found))
    others = len(found) - 1
    more = f" (and {others} more place{'s' if others > 1 else ''})" if others else ""
    where = f"case '{first.case_id}': {first.where or 'the case'}{more}"
    if ignore:
        return (
            f"eval set '{path}': ignoring keys ADK refuses: {', '.join(keys)}; first in {where}",
        )
    what = f"keys {', '.join(keys)}" if len(keys) > 1 else f"key {keys[0]}"
    raise EvalSetError(
        f"eval set '{path}' {where}: ADK refuses the unknown {what}; fix the file, or pass "
        f"{OPT_IN} to load it without {'them' if len(keys) > 1 else 'it'}"
    )


def _models(value: Any, where: str) -> Iterator[tuple[str, BaseModel]]:
    if isinstance(value, BaseModel):
        yield where, value
        for name in type(value).model_fields:
            yield from _models(getattr(value, name), f"{where}.{name}" if where else name)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _models(item, f"{where}[{index}]")
