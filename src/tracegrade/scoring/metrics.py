"""The metrics there are: one SQL file each, described by its header.

A scorer file opens with `-- key: value` lines, then a comment saying what a row means:

    -- metric: tool_trajectory_avg_score
    -- better: higher              higher | lower (a budget: lower is better)
    -- needs: expected             expected | nothing (reference-free)
    -- aliases: trajectory         other names accepted in criteria (optional)
    -- range: 0..1                 the values a score can take (optional; `0..` for no
                                   upper end): a bound outside it is a config error
    -- judge: adk | name.prompt      judged by an LLM: ADK's evaluator, or this jinja2 prompt
                                   template beside the file (scoring/judging/templates.py)
    -- rates: turn | conversation   a template judge rates each turn (default), or each
                                   conversation at its last turn
    -- option: max_words integer = 50  what it means
                                   an option the criterion may set (any number of these
                                   lines): name, type (number, integer, boolean, string),
                                   `= default` as JSON, then, two spaces on, what it means;
                                   checked in scoring/criteria.py, read by the SQL from the
                                   `tg_options` variable

Shipped scorers live in `queries/scorers/`; `--metrics DIR` adds the `.sql` files of a
folder, which may also replace a shipped metric of the same name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from tracegrade._resources import sql_files
from tracegrade.errors import ConfigError

_HEADER = re.compile(r"^--\s*(metric|better|needs|aliases|unit|range|judge|rates)\s*:\s*(.+?)\s*$")
_RANGE = re.compile(r"^(-?[0-9.]+)?\s*\.\.\s*(-?[0-9.]+)?$")
_OPTION = re.compile(r"^--\s*option\s*:\s*(.*?)\s*$")
_OPTION_HEAD = re.compile(r"^(\w+)\s+(\w+)\s*=\s*")
OPTION_TYPES: dict[str, tuple[type, ...]] = {
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "string": (str,),
}
"""An option's declared type, and the JSON values (as Python decodes them) it accepts."""
RESERVED_OPTIONS = frozenset(
    {"threshold", "max", "p50", "p95", "include_intermediate_responses_in_final",
     "judge_model_options", "judge", "error_predicate"}
)  # fmt: skip
"""Keys a criterion already means something by (the gates, ADK's fields, the engine's)."""


@dataclass(frozen=True)
class MetricOption:
    """One `-- option:` line of a metric file: a setting its criterion may give."""

    name: str
    type: str
    """number, integer, boolean or string"""
    default: Any
    doc: str = ""


def accepts(option_type: str, value: Any) -> bool:
    """Whether a JSON value is of an option's declared type (true is no number)."""
    if isinstance(value, bool):
        return option_type == "boolean"
    return isinstance(value, OPTION_TYPES[option_type])


@dataclass(frozen=True)
class MetricSpec:
    name: str
    path: Path
    better: Literal["higher", "lower"] = "higher"
    needs_expected: bool = False
    aliases: tuple[str, ...] = ()
    unit: str = ""
    low: float | None = None
    """The lowest value a score can take, if there is one."""
    high: float | None = None
    """The highest value a score can take, if there is one."""
    judge: str | None = None
    """`adk`, or the file name of the prompt template beside the scorer."""
    rates_conversation: bool = False
    options: tuple[MetricOption, ...] = ()
    """What its criterion may set beyond the gates (`-- option:` lines)."""

    def default_options(self) -> dict[str, Any]:
        """`tg_options` when the criterion sets none of them (or there is no criterion)."""
        return {option.name: option.default for option in self.options}

    @property
    def template_path(self) -> Path | None:
        return None if self.judge in (None, "adk") else self.path.parent / str(self.judge)

    @property
    def sql(self) -> str:
        return self.path.read_text()


def read_spec(path: Path) -> MetricSpec:
    fields: dict[str, str] = {}
    options: list[MetricOption] = []
    for line in path.read_text().splitlines():
        if not line.startswith("--"):
            break
        match = _HEADER.match(line)
        if match:
            fields[match[1]] = match[2]
        elif option := _OPTION.match(line):
            options.append(_option(path, option[1], [o.name for o in options]))
    if options and fields.get("judge") is not None:
        raise ConfigError(
            f"metric file {path}: a judged metric takes no '-- option:' lines; its criterion's "
            "other keys reach its template as `options`"
        )
    name = fields.get("metric", path.stem)
    better = fields.get("better", "higher")
    needs = fields.get("needs", "nothing")
    rates = fields.get("rates", "turn")
    if better not in ("higher", "lower") or needs not in ("expected", "nothing"):
        raise ConfigError(
            f"metric file {path}: 'better' must be higher|lower and 'needs' expected|nothing"
        )
    if rates not in ("turn", "conversation"):
        raise ConfigError(f"metric file {path}: 'rates' must be turn|conversation")
    aliases = tuple(a.strip() for a in fields.get("aliases", "").split(",") if a.strip())
    low, high = _range(path, fields.get("range"))
    return MetricSpec(
        name, path, better, needs == "expected", aliases, fields.get("unit", ""),  # type: ignore[arg-type]
        low, high, judge=fields.get("judge"), rates_conversation=rates == "conversation",
        options=tuple(options),
    )  # fmt: skip


def _option(path: Path, text: str, seen: list[str]) -> MetricOption:
    """`max_words integer = 50  the most words` into an option, or one line saying why not."""
    where = f"metric file {path}: option '{text}'"
    head = _OPTION_HEAD.match(text)
    if head is None:
        raise ConfigError(f"{where}: write it as NAME TYPE = DEFAULT  WHAT IT MEANS")
    name, kind = head[1], head[2]
    if kind not in OPTION_TYPES:
        raise ConfigError(f"{where}: the type must be {', '.join(OPTION_TYPES)}, not {kind}")
    if name in RESERVED_OPTIONS or name in seen:
        taken = "declared twice" if name in seen else "a criterion key already"
        raise ConfigError(f"{where}: {name} is {taken}; give the option another name")
    try:
        default, end = json.JSONDecoder().raw_decode(text, head.end())
    except json.JSONDecodeError:
        raise ConfigError(f"{where}: the default must be a JSON value ({kind})") from None
    if not accepts(kind, default):
        raise ConfigError(f"{where}: the default {json.dumps(default)} is no {kind}")
    return MetricOption(name, kind, default, text[end:].strip())


def _range(path: Path, text: str | None) -> tuple[float | None, float | None]:
    if text is None:
        return None, None
    match = _RANGE.match(text)
    try:
        if match is None:
            raise ValueError(text)
        low, high = match.groups()
        return (None if low is None else float(low)), (None if high is None else float(high))
    except ValueError:
        raise ConfigError(f"metric file {path}: 'range' must read like 0..1 or 0..") from None


def available_metrics(extra_dirs: Iterable[Path] = ()) -> dict[str, MetricSpec]:
    """Every metric by name: shipped ones, then the user's folders (which win on a clash)."""
    specs = {spec.name: spec for spec in map(read_spec, sql_files("scorers"))}
    for folder in extra_dirs:
        if not Path(folder).is_dir():
            raise ConfigError(f"metrics folder '{folder}' does not exist")
        for path in sorted(Path(folder).glob("*.sql")):
            spec = read_spec(path)
            specs[spec.name] = spec
    return specs


def resolve_name(name: str, specs: dict[str, MetricSpec]) -> str | None:
    if name in specs:
        return name
    return next((spec.name for spec in specs.values() if name in spec.aliases), None)
