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

Shipped scorers live in `queries/scorers/`; `--metrics DIR` adds the `.sql` files of a
folder, which may also replace a shipped metric of the same name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tracegrade._resources import sql_files
from tracegrade.errors import ConfigError

_HEADER = re.compile(r"^--\s*(metric|better|needs|aliases|unit|range|judge|rates)\s*:\s*(.+?)\s*$")
_RANGE = re.compile(r"^(-?[0-9.]+)?\s*\.\.\s*(-?[0-9.]+)?$")


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

    @property
    def template_path(self) -> Path | None:
        return None if self.judge in (None, "adk") else self.path.parent / str(self.judge)

    @property
    def sql(self) -> str:
        return self.path.read_text()


def read_spec(path: Path) -> MetricSpec:
    fields: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if not line.startswith("--"):
            break
        match = _HEADER.match(line)
        if match:
            fields[match[1]] = match[2]
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
    )  # fmt: skip


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
