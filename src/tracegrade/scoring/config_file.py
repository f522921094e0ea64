"""Finding and reading the criteria file, as `adk eval` finds `test_config.json`."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tracegrade.errors import ConfigError, EvalSetError
from tracegrade.evalset import find_config, parse_selection
from tracegrade.evalset.diagnostics import read_json
from tracegrade.scoring.criteria import ADK_DEFAULT_CRITERIA, ScoringConfig, parse_config
from tracegrade.scoring.metrics import MetricSpec, available_metrics


@dataclass(frozen=True)
class LoadedConfig:
    config: ScoringConfig
    specs: dict[str, MetricSpec]
    raw: dict[str, Any] | None
    source: Path | None
    """The file read, or None for ADK's default criteria."""
    metric_dirs: tuple[Path, ...] = ()
    """Folders of extra metric files the specs include."""


def load_scoring_config(
    path: str | Path | None,
    eval_sets: Sequence[str] = (),
    metric_dirs: Iterable[str | Path] = (),
) -> LoadedConfig:
    """The criteria in `path`; else the test_config.json beside the one eval-set file given
    (ADK's rule) or inside the one folder given; else ADK's defaults."""
    dirs = tuple(Path(d) for d in metric_dirs)
    specs = available_metrics(dirs)
    source = Path(path) if path else _beside(eval_sets)
    raw = _with_absolute_imports(_read(source), source.parent) if source else None
    try:
        config = parse_config(raw, specs)
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}" if source else str(exc)) from None
    return LoadedConfig(config, specs, raw, source, dirs)


def allowing_not_evaluated(loaded: LoadedConfig) -> LoadedConfig:
    """The same criteria with `allow_not_evaluated` set (`tracegrade run
    --allow-not-evaluated`), in the document too: it is what the run records and the
    server scores with."""
    raw = dict(loaded.raw or {"criteria": ADK_DEFAULT_CRITERIA})
    raw["tracegrade"] = {**raw.get("tracegrade", {}), "allow_not_evaluated": True}
    config = loaded.config.model_copy(update={"allow_not_evaluated": True})
    return dataclasses.replace(loaded, config=config, raw=raw)


def with_judge_import(loaded: LoadedConfig, module: str) -> LoadedConfig:
    """The same criteria with `module` added to `judge_imports`, in the document too: a
    judge the agent's module registers is found again wherever the run is scored."""
    raw = dict(loaded.raw or {"criteria": ADK_DEFAULT_CRITERIA})
    ours = dict(raw.get("tracegrade", {}))
    ours["judge_imports"] = [*ours.pop("judgeImports", []), *ours.get("judge_imports", []), module]
    raw["tracegrade"] = ours
    imports = (*loaded.config.judge_imports, module)
    config = loaded.config.model_copy(update={"judge_imports": imports})
    return dataclasses.replace(loaded, config=config, raw=raw)


def _beside(eval_sets: Sequence[str]) -> Path | None:
    paths = [parse_selection(spec)[0] for spec in eval_sets]
    if len(paths) != 1:
        return None
    if paths[0].is_dir():  # a folder of eval sets, like an ADK agent folder
        inside = paths[0] / "test_config.json"
        return inside if inside.is_file() else None
    return find_config(paths[0]) if paths[0].is_file() else None


def _with_absolute_imports(raw: dict[str, Any], folder: Path) -> dict[str, Any]:
    """`.py` files in tracegrade.judge_imports are relative to the criteria file; the run
    records the document, so later scorings must find them from anywhere."""
    ours = raw.get("tracegrade")
    if not isinstance(ours, dict):
        return raw
    for key in ("judge_imports", "judgeImports"):
        if isinstance(ours.get(key), list):
            ours[key] = [
                str((folder / m).resolve()) if isinstance(m, str) and m.endswith(".py") else m
                for m in ours[key]
            ]
    return raw


def _read(path: Path) -> dict[str, Any]:
    try:
        _, data = read_json(path, "criteria file")
    except EvalSetError as exc:
        raise ConfigError(str(exc)) from None
    if not isinstance(data, dict):
        raise ConfigError(f"criteria file '{path}': expected a JSON object")
    return data
