"""Values in and out of every report: as a `Reader` hands them over, and as people read them.

In: a local DuckDB connection returns JSON columns as text and lists as lists; a remote
read-only endpoint sends the same rows JSON-encoded, so a JSON column may arrive as text or
already decoded, and timestamps as text. The report layer reads every value through the
`as_*` helpers and never relies on DuckDB's Python types.

Out: numbers, tool calls and tables look the same in every human-readable report. Unknown
is shown as a dash, never as 0. Everything renders through `to_text`, a rich Console that
records into a string, so renderers return text and never print.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from io import StringIO
from typing import Any

from rich.console import Console, RenderableType

from tracegrade.exit_codes import ExitCode


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


DASH = "–"


def num(value: float | None) -> str:
    """A metric value: small numbers to two places (scores: 0.50, 1.00), larger ones whole
    with separators (1,686) or to one place (175.5), tiny ones to two significant digits."""
    if value is None:
        return DASH
    if abs(value) >= 10:
        return f"{value:,.0f}" if value == int(value) else f"{value:,.1f}"
    if value == 0 or abs(value) >= 0.01:
        return f"{value:.2f}"
    return f"{value:.2g}"


def usd(value: float | None) -> str:
    if value is None:
        return DASH
    if value >= 1:
        return f"${value:,.2f}"
    return f"${value:.4f}" if value >= 0.01 else f"${value:.6f}"


def ms(value: float | None) -> str:
    return DASH if value is None else f"{value:,.0f}"


def count(value: int | None) -> str:
    return DASH if value is None else f"{value:,}"


def pct(value: float | None) -> str:
    return DASH if value is None else f"{value:.0%}"


def comparator(better: str | None) -> str:
    return {"higher": "≥", "lower": "≤"}.get(better or "", "vs")


def call(name: str, args: Any, captured: bool = True) -> str:
    """`add_item(item="apple", quantity=2)`. No args given is `f()`, an empty object
    `f({})` (ADK tells the two apart), arguments that were not captured `f(?)`."""
    if not captured:
        return f"{name}(?)"
    if args is None:
        return f"{name}()"
    if isinstance(args, dict) and args:
        inner = ", ".join(f"{key}={compact(value)}" for key, value in args.items())
        return f"{name}({inner})"
    return f"{name}({compact(args)})"


def compact(value: Any) -> str:
    """JSON on one line, as in a call."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def header(name: str, width: int = 12) -> str:
    """A metric name as a column header, broken at underscores into lines of ~`width`."""
    lines: list[str] = []
    for word in name.split("_"):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += f"_{word}"
        else:
            lines.append(word)
    return "\n".join(lines)


_EXIT_MEANING = {
    ExitCode.OK: "passed",
    ExitCode.GATE_FAILED: "quality gate failed",
    ExitCode.ERRORS_OVER_LIMIT: "errors over the allowed rate",
    ExitCode.NOT_EVALUATED: "cases not evaluated",
    ExitCode.INCOMPLETE: "run incomplete",
}


def exit_meaning(code: int) -> str:
    """`1 (quality gate failed)`: an exit code and what it says."""
    try:
        known = ExitCode(code)
    except ValueError:
        return f"{code} (unknown)"
    return f"{code} ({_EXIT_MEANING.get(known, known.name.lower())})"


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


UNBOUNDED = 10_000
"""The width to render at when there is no terminal (piped): wide enough for any table."""


def to_text(renderables: Iterable[RenderableType], width: int = 100, color: bool = False) -> str:
    """Render into a string: plain text, or with ANSI colours when `color`."""
    console = Console(
        file=StringIO(),
        record=True,
        width=width,
        color_system="standard" if color else None,
        force_terminal=color,
        highlight=False,
        emoji=False,
        markup=False,  # a plain string from data, "[link=...]", is not markup either
        legacy_windows=False,
    )
    for renderable in renderables:
        console.print(renderable)
    # Tables pad their cells to the full width; trailing blanks only make diffs noisy.
    lines = console.export_text(styles=color).splitlines()
    return "".join(_trim(line) + "\n" for line in lines)


# Blanks at the end of a line, mixed with the colour codes of empty styled cells.
_TRAILING = re.compile(r"(?:\s|\x1b\[[0-9;]*m)+$")


def _trim(line: str) -> str:
    match = _TRAILING.search(line)
    if match is None:
        return line
    reset = "\x1b[0m" if "\x1b" in match.group(0) else ""  # leave no style switched on
    return line[: match.start()] + reset
