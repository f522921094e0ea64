"""Data text made harmless for a terminal, before any terminal renderer lays it out.

Agent answers, tool arguments, error messages, case ids: all of it is text someone else
wrote, and a terminal obeys what it holds. An escape sequence could write the clipboard
(OSC 52), hide a link behind text (OSC 8), retitle the window, move the cursor or clear
the screen; a carriage return or backspace could overwrite what was printed. `scrubbed`
removes every such sequence and control character from every string of a report model,
and turns each line break, tab or carriage return into a space: a line starts only where
the layout starts one, so no data can draw a line that looks like the report's own.

It runs at each terminal renderer's entry, on the model it renders, so the layout measures
the text that is printed. JSON, JUnit and HTML outputs keep the text as it is: they
escape it in their own ways.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, TypeVar

from pydantic import BaseModel

T = TypeVar("T")

_SEQUENCES = re.compile(
    r"""
      (?:\x1b\]|\x9d) [^\x07\x1b\x9c]* (?:\x07|\x1b\\|\x9c)?     # OSC ... BEL or ST
    | (?:\x1b[PX^_]|[\x90\x98\x9e\x9f]) [^\x1b\x9c]* (?:\x1b\\|\x9c)?  # DCS, SOS, PM, APC
    | (?:\x1b\[|\x9b) [\x30-\x3f]* [\x20-\x2f]* [\x40-\x7e]?     # CSI
    | \x1b [\x20-\x2f]* [\x30-\x7e]?                             # any other ESC, or a lone one
    """,
    re.VERBOSE,
)
_BREAKS = re.compile(r"[\t\n\v\f\r\x85\u2028\u2029]+")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def terminal_text(text: str) -> str:
    """`text` without escape sequences or control characters; line breaks as spaces."""
    if text.isprintable():
        return text  # nearly all text: nothing to do
    return _CONTROLS.sub("", _BREAKS.sub(" ", _SEQUENCES.sub("", text)))


def scrubbed(value: T) -> T:
    """A copy of `value` (a model, dataclass, list, dict or str) with `terminal_text`
    applied to every string in it."""
    cleaned: Any
    if isinstance(value, str):
        cleaned = terminal_text(value)
    elif isinstance(value, BaseModel):
        names = type(value).model_fields
        cleaned = value.model_copy(update={n: scrubbed(getattr(value, n)) for n in names})
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = dataclasses.fields(value)
        changes = {f.name: scrubbed(getattr(value, f.name)) for f in fields if f.init}
        cleaned = dataclasses.replace(value, **changes)
    elif isinstance(value, tuple) and hasattr(value, "_fields"):  # a NamedTuple
        cleaned = type(value)(*(scrubbed(item) for item in value))
    elif isinstance(value, list | tuple):
        cleaned = type(value)(scrubbed(item) for item in value)
    elif isinstance(value, dict):
        cleaned = {scrubbed(k): scrubbed(v) for k, v in value.items()}
    else:
        cleaned = value
    return cleaned  # type: ignore[no-any-return]
