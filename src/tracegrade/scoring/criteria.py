"""Criteria: which metrics gate, at what thresholds, and how repeats and errors decide.

Reads ADK's `test_config.json` as ADK does: `criteria` maps a metric to a bare number
(the threshold) or an object (`threshold`, `match_type`, `ignore_args`, ...; snake_case or
camelCase). tracegrade's own settings go under a top-level `tracegrade` key, which ADK
ignores, so one file serves both tools:

    {"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "IN_ORDER"}},
     "tracegrade": {"criteria": {"token_usage": {"max": 4000}, "latency": {"p95": 8000}},
                    "repeat_policy": "majority", "max_error_rate": 0.1,
                    "prices": {"my-model": {"input": 0.3, "output": 2.5}}}}

Our metrics may also sit in `criteria` directly when the file is not shared with ADK.

The file's parts are pydantic models read as every ADK file is (`FileModel`: snake_case or
camelCase keys); a shipped metric with settings of its own gets a `CriterionEntry`
subclass in `ENTRY_MODELS`, and any other metric whose file declares options (`-- option:`
lines, scoring/metrics.py) one made from those declarations (`declared_entry`). Whatever
is wrong surfaces as one `ConfigError` naming the field:
`criteria.latency.p95: expected a number, got 'fast'`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self, TypeVar

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    create_model,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_snake
from pydantic_core import ErrorDetails

from tracegrade.errors import ConfigError, closest
from tracegrade.evalset.content import FileModel
from tracegrade.scoring.metrics import MetricOption, MetricSpec, resolve_name
from tracegrade.scoring.predicate import check_predicate

ADK_DEFAULT_CRITERIA: dict[str, Any] = {
    "tool_trajectory_avg_score": 1.0,
    "response_match_score": 0.8,
}

# ADK metrics tracegrade does not compute: reported as not evaluated, never gating.
NOT_COMPUTED: dict[str, str] = {}
TOP_LEVEL_KEYS = ("criteria", "custom_metrics", "user_simulator_config", "live_model_config",
                  "tracegrade")  # fmt: skip
"""ADK's EvalConfig fields, and ours."""
MATCH_TYPES = ("EXACT", "IN_ORDER", "ANY_ORDER", "SUBSET", "SUPERSET", "PRECISION", "RECALL")
ARG_MODES = ("EXACT", "SUBSET", "IGNORE")

_M = TypeVar("_M", bound=BaseModel)

Number = Annotated[float, Field(strict=True)]
"""A JSON number; true, false and numeric strings are refused."""


class Criterion(BaseModel):
    """One gating metric. `threshold`: the case mean must reach it (or, for lower-is-better
    metrics, stay at or under it); `max`: every turn at or under it; `p50`/`p95`: the run's
    percentile at or under it. `options` reach the metric's SQL as `tg_options`."""

    model_config = ConfigDict(frozen=True)

    metric: str
    threshold: float | None = None
    max: float | None = None
    p50: float | None = None
    p95: float | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    better: Literal["higher", "lower"] = "higher"
    """The metric's direction (its `-- better:` header), kept with the scoring so a report
    of a metric from the user's own folder still knows it."""


class RepeatPolicy(BaseModel):
    """How a case's repeats decide it: all must pass, a majority, or at least `k`
    (applied in queries/scoring/03_levels.sql)."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["all", "majority", "at_least"] = "all"
    k: int = 1


class ScoringConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    criteria: dict[str, Criterion]
    not_evaluated: dict[str, str] = Field(default_factory=dict)
    repeat_policy: RepeatPolicy = RepeatPolicy()
    max_error_rate: float = 0.0
    prices: dict[str, dict[str, float]] = Field(default_factory=dict)
    allow_not_evaluated: bool = False
    """A case with no criterion evaluated does not fail the gate (exit 4) when set."""
    judge_imports: tuple[str, ...] = ()
    """Modules (or .py files) imported before judge models are resolved."""


class CriterionEntry(FileModel):
    """A metric's object in `criteria`: its gates, and the fields of ADK's BaseCriterion,
    which are accepted and mean nothing to a SQL scorer."""

    model_config = ConfigDict(extra="forbid")

    threshold: Number | None = None
    max: Number | None = None
    p50: Number | None = None
    p95: Number | None = None
    include_intermediate_responses_in_final: Any = None
    judge_model_options: Any = None

    def options(self) -> dict[str, Any]:
        """What the metric's SQL reads from `tg_options`."""
        return {}


class TrajectoryEntry(CriterionEntry):
    """`tool_trajectory_avg_score`: ADK's ToolTrajectoryCriterion, and argument modes."""

    match_type: str = "EXACT"
    ignore_args: bool = False
    args_match: Any = None
    args_match_per_tool: dict[str, Any] = Field(default_factory=dict)
    unordered_parallel_calls: bool = False

    @field_validator("match_type", mode="before")
    @classmethod
    def _spelled_as_adk_allows(cls, value: Any) -> str:
        spelled = str(value).strip().upper().replace("-", "_").replace(" ", "_")
        if spelled not in MATCH_TYPES:
            raise ValueError(f"{value!r} is not one of {', '.join(MATCH_TYPES)}")
        return spelled

    @model_validator(mode="after")
    def _known_argument_modes(self) -> Self:
        for mode in [self._args_mode(), *self.args_match_per_tool.values()]:
            if str(mode).upper() not in ARG_MODES:
                raise ValueError(f"argument match {mode!r} is not one of {', '.join(ARG_MODES)}")
        return self

    def _args_mode(self) -> str:
        return str(self.args_match or ("IGNORE" if self.ignore_args else "EXACT")).upper()

    def options(self) -> dict[str, Any]:
        given = {"ignore_args": self.ignore_args} if "ignore_args" in self.model_fields_set else {}
        per_tool = {tool: str(mode).upper() for tool, mode in self.args_match_per_tool.items()}
        return {
            **given,
            "match_type": self.match_type,
            "args_match": self._args_mode(),
            "args_match_per_tool": per_tool,
            "unordered_parallel_calls": self.unordered_parallel_calls,
        }


class ToolErrorEntry(CriterionEntry):
    """`tool_error_rate`: whether blank results are errors, and a SQL predicate over a call's
    name, args and result that marks domain errors (checked as one read-only expression)."""

    blank_is_error: bool = True
    error_predicate: str | None = None

    @field_validator("error_predicate")
    @classmethod
    def _one_read_only_expression(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            return check_predicate(value)
        except ConfigError as exc:
            raise ValueError(str(exc)) from None

    def options(self) -> dict[str, Any]:
        return {"blank_is_error": self.blank_is_error, "error_predicate": self.error_predicate}


ENTRY_MODELS: dict[str, type[CriterionEntry]] = {
    "tool_trajectory_avg_score": TrajectoryEntry,
    "tool_error_rate": ToolErrorEntry,
}
"""Metrics whose criterion object has settings beyond the gates."""


class DeclaredEntry(CriterionEntry):
    """A criterion object of a metric whose file declares its options: the gates, plus one
    field per `-- option:` line, typed and defaulted as declared (`declared_entry`)."""

    def options(self) -> dict[str, Any]:
        own = CriterionEntry.model_fields
        return {name: getattr(self, name) for name in type(self).model_fields if name not in own}


_OPTION_FIELDS: dict[str, Any] = {
    "number": Number,
    "integer": Annotated[int, Field(strict=True)],
    "boolean": Annotated[bool, Field(strict=True)],
    "string": Annotated[str, Field(strict=True)],
}
"""Each declared type as a field that takes that JSON type only (no "3" for 3, no true for 1)."""


def declared_entry(metric: str, options: tuple[MetricOption, ...]) -> type[CriterionEntry]:
    """The criterion model of a metric that declares `options` (CriterionEntry without)."""
    if not options:
        return CriterionEntry
    fields: dict[str, Any] = {o.name: (_OPTION_FIELDS[o.type], o.default) for o in options}
    return create_model(f"{metric}_criterion", __base__=DeclaredEntry, **fields)


def _repeat_policy(value: Any) -> Any:
    if value in ("all", "majority"):
        return RepeatPolicy(kind=value)
    if isinstance(value, dict) and set(value) == {"at_least"}:
        k = value["at_least"]
        if isinstance(k, int) and not isinstance(k, bool) and k >= 1:
            return RepeatPolicy(kind="at_least", k=k)
    raise ValueError(f"{value!r} must be 'all', 'majority' " + 'or {"at_least": k} with k >= 1')


def _rate(value: Any) -> Any:
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1:
        return value
    raise ValueError(f"{value!r} must be a number from 0 to 1")


def _price(value: Any) -> Any:
    if not isinstance(value, dict) or not {"input", "output"} <= value.keys():
        raise ValueError("needs 'input' and 'output' (USD per 1M tokens)")
    return value


class TracegradeSection(FileModel):
    """The file's `tracegrade` object, which ADK ignores: ours, so a key it does not know
    (a typo) is refused rather than left to gate nothing."""

    model_config = ConfigDict(extra="forbid")

    criteria: dict[str, Any] = Field(default_factory=dict)
    repeat_policy: Annotated[RepeatPolicy, BeforeValidator(_repeat_policy)] = RepeatPolicy()
    max_error_rate: Annotated[float, BeforeValidator(_rate)] = 0.0
    prices: dict[str, Annotated[dict[str, Number], BeforeValidator(_price)]] = Field(
        default_factory=dict
    )
    allow_not_evaluated: Annotated[bool, Field(strict=True)] = False
    judge_imports: list[str] = Field(default_factory=list)


class CriteriaFile(FileModel):
    """A test_config.json; criteria values are read per metric (`parse_criterion`)."""

    criteria: dict[str, Any] = Field(default_factory=dict)
    tracegrade: TracegradeSection = TracegradeSection()


def parse_config(raw: dict[str, Any] | None, specs: dict[str, MetricSpec]) -> ScoringConfig:
    """A test_config.json document (None: ADK's defaults) into a `ScoringConfig`."""
    document = _validated(CriteriaFile, raw or {"criteria": ADK_DEFAULT_CRITERIA}, "")
    _refuse_near_misses(raw or {})
    ours = document.tracegrade
    twice = [name for name in ours.criteria if name in document.criteria]
    if twice:
        raise ConfigError(f"criteria: '{twice[0]}' is set both in criteria and tracegrade.criteria")
    criteria: dict[str, Criterion] = {}
    skipped: dict[str, str] = {}
    for name, value in {**document.criteria, **ours.criteria}.items():
        if name in NOT_COMPUTED:
            skipped[name] = NOT_COMPUTED[name]
            continue
        metric = resolve_name(name, specs)
        if metric is None:
            raise ConfigError(f"criteria: unknown metric '{name}' ({_metric_hint(name, specs)})")
        criteria[metric] = parse_criterion(metric, value, specs[metric])
    return ScoringConfig(
        criteria=criteria,
        not_evaluated=skipped,
        repeat_policy=ours.repeat_policy,
        max_error_rate=ours.max_error_rate,
        prices=ours.prices,
        allow_not_evaluated=ours.allow_not_evaluated,
        judge_imports=tuple(ours.judge_imports),
    )


def _refuse_near_misses(raw: dict[str, Any]) -> None:
    """ADK ignores top-level keys it does not know, and so do we, except one that looks
    like a key ADK or tracegrade reads: a typo that would silently drop what it holds."""
    for key in raw:
        near = closest(to_snake(key), TOP_LEVEL_KEYS)
        if near is not None and to_snake(key) not in TOP_LEVEL_KEYS:
            raise ConfigError(f"unknown key '{key}' (did you mean {near}?)")


def _metric_hint(name: str, specs: dict[str, MetricSpec]) -> str:
    names = [n for spec in specs.values() for n in (spec.name, *spec.aliases)]
    near = closest(name, names)
    if near is not None:
        return f"did you mean {resolve_name(near, specs)}?"
    return "none has a name like it: docs/metrics.md lists them; --metrics adds your own"


def parse_criterion(metric: str, value: Any, spec: MetricSpec) -> Criterion:
    """One metric's value in `criteria`: a bare number (a threshold, or a budget for a
    lower-is-better metric) or an object."""
    if isinstance(value, bool) or not isinstance(value, int | float | dict):
        raise ConfigError(f"criteria.{metric}: expected a number or an object, got {value!r}")
    if spec.judge is not None:
        return _judged(metric, value, spec)
    if not isinstance(value, dict):
        gate = "threshold" if spec.better == "higher" else "max"
        _check_range(f"criteria.{metric}", float(value), spec)
        defaults = spec.default_options()
        return Criterion(
            metric=metric, better=spec.better, options=defaults, **{gate: float(value)}
        )
    model = ENTRY_MODELS.get(metric) or declared_entry(metric, spec.options)
    entry = _validated(model, value, f"criteria.{metric}")
    gates = {g: getattr(entry, g) for g in ("threshold", "max", "p50", "p95")}
    if all(bound is None for bound in gates.values()):
        raise ConfigError(f"criteria.{metric}: give a threshold (or max, p50, p95)")
    for gate, bound in gates.items():
        if bound is not None:
            _check_range(f"criteria.{metric}.{gate}", bound, spec)
    return Criterion(metric=metric, better=spec.better, options=entry.options(), **gates)


def _check_range(where: str, bound: float, spec: MetricSpec) -> None:
    """A bound outside the values the metric can take is a mistake: one the scores can
    never reach fails every case, one they can never miss gates nothing."""
    low, high = spec.low, spec.high
    if (low is None or bound >= low) and (high is None or bound <= high):
        return
    if low is not None and high is not None:
        values = f"run from {low:g} to {high:g}"
    else:
        values = f"are never below {low:g}" if low is not None else f"are never above {high:g}"
    raise ConfigError(f"{where}: {bound:g} is out of range ({spec.name} scores {values})")


def _judged(metric: str, value: Any, spec: MetricSpec) -> Criterion:
    """A judged metric's criterion, read as ADK reads it (snake_case or camelCase; a bare
    number is the threshold); its options hold it as written, for the judge runner."""
    from tracegrade.scoring.judging.metrics import ADK_JUDGED, validated_criterion

    adk = ADK_JUDGED.get(metric) if spec.judge == "adk" else None
    criterion = validated_criterion(metric, value, adk.criterion if adk else "LlmAsAJudgeCriterion")
    return Criterion(metric=metric, threshold=criterion.threshold, options={"judge": value})


def _validated(model: type[_M], value: Any, where: str) -> _M:
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        raise _config_error(exc.errors(), where, model) from None


def _config_error(errors: list[ErrorDetails], where: str, model: type[BaseModel]) -> ConfigError:
    """The first problem pydantic found, as one line: `path.to.field: what is wrong`."""
    first = errors[0]
    path = ".".join(filter(None, [where, *map(str, first["loc"])]))
    if first["type"] == "extra_forbidden":
        # Every unknown key of that object at once, named as in ADK's snake_case.
        parent = first["loc"][:-1]
        unknown = sorted(
            to_snake(str(e["loc"][-1]))
            for e in errors
            if e["type"] == "extra_forbidden" and e["loc"][:-1] == parent
        )
        path = ".".join(filter(None, [where, *map(str, parent)]))
        return ConfigError(f"{path}: unknown setting {_unknown(unknown, _fields(model, parent))}")
    return ConfigError(f"{path}: {_problem(first)}")


def _unknown(keys: list[str], known: list[str]) -> str:
    """`treshold (did you mean threshold?)`; with several keys, each that has a near name."""
    near = {key: closest(key, known) for key in keys}
    hints = [f"{n}" if len(keys) == 1 else f"{n} for {k}" for k, n in near.items() if n]
    return ", ".join(keys) + (f" (did you mean {', '.join(hints)}?)" if hints else "")


def _fields(model: type[BaseModel], loc: tuple[int | str, ...]) -> list[str]:
    """The field names of the object at `loc` inside `model` (none when it is no model)."""
    for name in loc:
        field = model.model_fields.get(str(name))
        annotation = field.annotation if field else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return []
        model = annotation
    return list(model.model_fields)


def _problem(error: ErrorDetails) -> str:
    kind, value = error["type"], error["input"]
    if kind == "value_error":
        return str(error.get("ctx", {}).get("error", error["msg"]))
    if kind in ("float_type", "float_parsing", "finite_number"):
        return f"expected a number, got {value!r}"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return f"expected an object, got {type(value).__name__}"
    if kind in ("bool_type", "bool_parsing"):
        return f"expected true or false, got {value!r}"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return f"expected an integer, got {value!r}"
    if kind == "string_type":
        return f"expected a string, got {value!r}"
    return str(error["msg"])
