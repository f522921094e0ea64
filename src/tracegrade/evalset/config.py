"""ADK's `test_config.json` (`EvalConfig`): which metrics to score and their criteria.

Each criterion is kept as written — a bare threshold or the raw object with its keys in
whichever case the user wrote them — because what the keys mean is the scoring layer's
business. Only the shape ADK itself insists on is checked here.
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from tracegrade.evalset.content import FileModel
from tracegrade.evalset.diagnostics import read_json, validation_error

CONFIG_FILE_NAME = "test_config.json"

DEFAULT_CRITERIA = MappingProxyType({"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8})
"""What ADK scores when no config file is found."""


class CodeConfig(BaseModel):
    """Where a custom metric's function lives."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    name: str = Field(description="Dotted path of the function, e.g. `pkg.metrics.my_metric`.")


class CustomMetricConfig(FileModel):
    """A user-defined metric named in `criteria`."""

    code_config: CodeConfig = Field(description="The function that computes the metric.")
    metric_info: dict[str, Any] | None = Field(
        default=None, description="Raw `MetricInfo`: description and value interval."
    )
    description: str = Field(default="", description="Description used without metric_info.")


class EvalConfig(FileModel):
    """A `test_config.json` file."""

    criteria: dict[str, float | dict[str, Any]] = Field(
        default_factory=dict,
        description="Metric name → a bare threshold or a raw criterion object "
        "(`threshold` plus metric-specific keys such as `match_type`/`matchType`).",
    )
    custom_metrics: dict[str, CustomMetricConfig] | None = Field(
        default=None, description="Custom metric name → where its function lives."
    )
    user_simulator_config: dict[str, Any] | None = Field(
        default=None, description="Raw settings of ADK's user simulator (scenario cases)."
    )
    live_model_config: dict[str, Any] | None = Field(
        default=None, description="Raw Live API settings (`timeout_seconds`)."
    )

    @field_validator("criteria", mode="before")
    @classmethod
    def _criteria_shape(cls, value: Any) -> Any:
        # Checked by hand: a pydantic union would report one error per member.
        for name, criterion in value.items() if isinstance(value, dict) else ():
            if isinstance(criterion, dict):
                if not _is_number(criterion.get("threshold")):
                    raise ValueError(f"criterion '{name}' needs a numeric threshold")
            elif not _is_number(criterion):
                raise ValueError(f"criterion '{name}' must be a number or an object")
        return value


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def load_config(path: str | Path) -> EvalConfig:
    """Read a `test_config.json`; raise `EvalSetError` naming the file and field if bad."""
    path = Path(path)
    _, data = read_json(path, "test config")
    try:
        return EvalConfig.model_validate(data)
    except ValidationError as exc:
        raise validation_error(f"test config '{path}'", exc, data) from None


def find_config(evalset_path: str | Path) -> Path | None:
    """The `test_config.json` beside an eval-set file, as `adk eval` finds it, or None."""
    candidate = Path(evalset_path).parent / CONFIG_FILE_NAME
    return candidate if candidate.is_file() else None
