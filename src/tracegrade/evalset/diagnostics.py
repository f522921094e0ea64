"""Reading JSON files and turning what is wrong with them into one-line `EvalSetError`s.

A user fixing an eval set needs the file, the case and the field path, in the file's own
terms (`conversation[1].user_content`), never a pydantic traceback.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tracegrade.errors import EvalSetError
from tracegrade.evalset.schema import UNION_TAGS

Loc = tuple[int | str, ...]


@dataclass(frozen=True)
class CaseLayout:
    """Where a format keeps its cases, so an error location can name the case."""

    prefix: Loc
    """Location of the list of cases: `("eval_cases",)` or `()` for a top-level list."""
    id_keys: tuple[str, ...]
    """Keys that hold a case's id, in the spellings the format accepts."""


def read_json(path: Path, kind: str) -> tuple[bytes, Any]:
    """The bytes and decoded JSON of a file, or an `EvalSetError` saying what is wrong."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise EvalSetError(f"{kind} '{path}': file not found") from None
    except OSError as exc:
        raise EvalSetError(f"{kind} '{path}': cannot read: {exc.strerror}") from None
    try:
        # utf-8-sig: editors on Windows like to start JSON files with a byte-order mark.
        return raw, json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise EvalSetError(f"{kind} '{path}': not UTF-8 (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        raise EvalSetError(f"{kind} '{path}': invalid JSON at {where}: {exc.msg}") from None


def validation_error(
    head: str, error: ValidationError, data: Any, layout: CaseLayout | None = None
) -> EvalSetError:
    """One line for the first problem pydantic found; `head` names the file."""
    problems = error.errors()
    loc: Loc = tuple(p for p in problems[0]["loc"] if p not in UNION_TAGS)
    case, loc = _split_case(loc, data, layout) if layout else (None, loc)
    if case is not None:
        head = f"{head} case '{case}'"
    message = _message(problems[0]["msg"])
    if len(problems) > 1:
        message += f" (and {len(problems) - 1} more)"
    where = format_loc(loc)
    return EvalSetError(f"{head}: {where}: {message}" if where else f"{head}: {message}")


def format_loc(loc: Sequence[int | str]) -> str:
    """`("conversation", 1, "user_content")` → `conversation[1].user_content`."""
    text = ""
    for item in loc:
        if isinstance(item, int):
            text += f"[{item}]"
        else:
            text += f".{item}" if text else item
    return text


def _split_case(loc: Loc, data: Any, layout: CaseLayout) -> tuple[str | None, Loc]:
    size = len(layout.prefix)
    index = loc[size] if len(loc) > size else None
    if loc[:size] != layout.prefix or not isinstance(index, int):
        return None, loc
    case_id = case_id_of(_cases(data, layout.prefix)[index], layout.id_keys)
    return (case_id, loc[size + 1 :]) if case_id is not None else (None, loc)


def case_id_of(case: Any, id_keys: tuple[str, ...]) -> str | None:
    """A raw case's id when it has a usable one."""
    if not isinstance(case, dict):
        return None
    found = next((case[key] for key in id_keys if key in case), None)
    return found if isinstance(found, str) else None


def _cases(data: Any, prefix: Loc) -> list[Any]:
    for key in prefix:
        data = data[key]
    return list(data)


def _message(msg: str) -> str:
    # pydantic prefixes errors raised by our own validators; the rest start capitalised.
    msg = msg.removeprefix("Value error, ")
    return msg[:1].lower() + msg[1:]
