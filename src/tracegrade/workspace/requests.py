"""What a front end asks for: an eval run (`EvalRequest`) or a scoring of stored turns
(`ScoreRequest`), typed, with the criteria parsed once (`Criteria`) before either crosses
into scoring.

The CLI's options, the pytest plugin's `eval_cases(...)`, the body of POST /v1/score and
Spark's options all become one of these; a setting added here reaches every front end.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, InstanceOf, ValidationError, model_validator

from tracegrade.errors import ConfigError
from tracegrade.evalset import Case, load_eval_set
from tracegrade.scoring.config_file import LoadedConfig, load_scoring_config
from tracegrade.scoring.criteria import parse_config
from tracegrade.scoring.judging.settings import JudgeSettings, judge_settings
from tracegrade.scoring.metrics import MetricSpec, available_metrics

Criteria = LoadedConfig
"""The criteria parsed once: the typed `config` scoring runs with, the metric `specs` it
was checked against, and the `raw` document a run records and a server is sent."""

__all__ = [
    "Criteria",
    "EvalRequest",
    "EvalSetCases",
    "JudgeSettings",
    "ScoreRequest",
    "judge_settings",
    "load_criteria",
]


def load_criteria(
    path: str | Path | None, eval_sets: Sequence[str] = (), metric_dirs: Iterable[Path] = ()
) -> Criteria:
    """The criteria file at `path`, else the test_config.json beside the one eval set
    (ADK's rule), else ADK's defaults; checked against the metrics in `metric_dirs` too."""
    return load_scoring_config(path, eval_sets, metric_dirs)


def criteria_of(
    document: dict[str, Any] | None, specs: dict[str, MetricSpec], where: str
) -> Criteria:
    """A criteria document that came without a file (a request's, a run's record), parsed;
    an error names `where` it came from."""
    try:
        config = parse_config(document, specs)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    return Criteria(config, specs, document, None)


class _Request(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)


class EvalRequest(_Request):
    """`tracegrade run`: replay eval sets through an agent, capture its spans, score them."""

    eval_sets: tuple[str, ...] = Field(
        description="eval-set files or folders; `file.json:case_a,case_b` selects cases"
    )
    agent: str = Field(description="`package.module:attr`, or a folder holding agent.py")
    config: Path | InstanceOf[Criteria] | None = Field(
        default=None,
        description="criteria file (default: test_config.json beside the eval set), or "
        "criteria already loaded (`load_criteria`)",
    )
    metric_dirs: tuple[Path, ...] = Field(default=(), description="folders of extra metric .sql")
    repeats: int = Field(default=1, ge=1)
    parallel: int = Field(default=1, ge=1, description="cases replayed at once")
    turn_timeout_s: float = Field(default=600.0, gt=0, description="seconds before a turn hangs")
    ignore_unknown_keys: bool = Field(
        default=False, description="load eval sets with keys ADK refuses, without those keys"
    )
    allow_not_evaluated: bool = Field(
        default=False, description="a case no criterion could evaluate does not fail the gate"
    )
    judge: JudgeSettings = Field(
        default_factory=JudgeSettings, description="how judged metrics call their judges"
    )
    otlp_endpoint: str | None = Field(
        default=None,
        description="send the spans over OTLP/HTTP here; the serve holding the store scores them",
    )
    baseline: str | None = Field(
        default=None,
        description="the run to diff against, checked before the first case (the report diffs)",
    )
    tags: tuple[str, ...] = Field(
        default=(), description="names for the run, signed with it (`--baseline TAG` finds it)"
    )


class EvalSetCases(_Request):
    """An eval set's cases as loaded where its file is (`load`): what an `evalset` scoring
    matches stored sessions to. They travel with the request, so a serve scoring them
    needs no access to the file."""

    source: str = Field(description="the file the cases were loaded from, as reports name it")
    cases: tuple[Case, ...] = Field(description="the cases, normalised from any ADK format")

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> EvalSetCases:
        """The file's cases; an `EvalSetError` names the file, case and field if it is
        malformed, as `tracegrade run` says it."""
        return cls(source=str(path), cases=load_eval_set(Path(path)).cases)


class ScoreRequest(_Request):
    """Score stored turns: an eval run again (`run_id`, default the latest), traffic
    (`since_s`, `sample`, `where`: turns of no eval run), or the sessions of no eval run
    that match an eval set's cases (`evalset`)."""

    run_id: str | None = None
    evalset: EvalSetCases | None = Field(
        default=None,
        description="an eval set's cases (a file path is loaded here): score the stored "
        "sessions of no eval run that match them by their user messages, as that many case "
        "repeats (docs/score-evalset.md)",
    )
    criteria: InstanceOf[Criteria] | None = Field(
        default=None,
        description="None: an eval run's own criteria (traffic: no criteria, budgets only; "
        "an eval set given as a file: the test_config.json beside it, else ADK's defaults)",
    )
    metric_dirs: tuple[Path, ...] = Field(
        default=(), description="folders of extra metric .sql (only where the file is open here)"
    )
    judge: JudgeSettings = Field(default_factory=JudgeSettings)
    # int | float: a value sent as 3 is quoted as 3, not 3.0, when it is refused.
    since_s: int | float | None = Field(default=None, description="traffic: the last seconds")
    sample: int | float | None = Field(default=None, description="traffic: a share, 0 to 1")
    where: str | None = Field(default=None, description="a SQL condition on the turns view")
    check_judges: bool = Field(
        default=False, description="only resolve the judges the criteria name; score nothing"
    )

    @model_validator(mode="before")
    @classmethod
    def _load_evalset_file(cls, data: Any) -> Any:
        """An eval set given as a path is read in this process, with the criteria beside it
        unless criteria are given (ADK's rule, as `tracegrade run` takes them): a server
        scoring the request is sent what the file says, never the path."""
        if not isinstance(data, dict) or not isinstance(data.get("evalset"), str | os.PathLike):
            return data
        path, criteria = data["evalset"], data.get("criteria")
        if criteria is None:
            criteria = load_criteria(None, [str(path)], data.get("metric_dirs", ()))
        return {**data, "evalset": EvalSetCases.load(path), "criteria": criteria}

    @model_validator(mode="after")
    def _one_selection(self) -> Self:
        # A ConfigError, not pydantic's error: every front end says it as one line.
        since, sample = self.since_s, self.sample
        if since is not None and not 0 <= since < _MAX_SINCE_S:
            raise ConfigError(f"since_s {since!r}: must be 0 or more seconds, under 100 years")
        if sample is not None and not 0 <= sample <= 1:
            raise ConfigError(f"sample {sample!r}: must be a share between 0 and 1")
        if self.traffic and self.run_id:
            raise ConfigError("give a run_id or traffic options (since, sample, where), not both")
        if self.evalset is not None and (self.traffic or self.run_id):
            raise ConfigError(
                "evalset scores the sessions matching its cases: give no run_id or traffic "
                "options (since, sample, where) with it"
            )
        return self

    @property
    def traffic(self) -> bool:
        return any(value is not None for value in (self.since_s, self.sample, self.where))

    def specs(self) -> dict[str, MetricSpec]:
        """The metrics the scoring may use: the criteria's, else the shipped and `metric_dirs`'."""
        if self.criteria is not None:
            return self.criteria.specs
        return available_metrics(list(self.metric_dirs))

    def to_wire(self) -> dict[str, Any]:
        """The JSON body of POST /v1/score (`from_wire` reads it back)."""
        body: dict[str, Any] = {
            "run_id": self.run_id,
            "config": self.criteria.raw if self.criteria is not None else None,
            "judge": self.judge.model_dump(exclude_unset=True) or None,
            "since_s": self.since_s,
            "sample": self.sample,
            "where": self.where,
        }
        if self.check_judges:
            body["check_judges"] = True
        if self.evalset is not None:
            body["evalset"] = self.evalset.model_dump(mode="json")
        return body

    @classmethod
    def from_wire(cls, body: dict[str, Any], specs: dict[str, MetricSpec]) -> ScoreRequest:
        """A JSON body (POST /v1/score) checked field by field, its criteria parsed against
        `specs`; a `ConfigError` names the field that is wrong."""
        _check_fields(body)
        document = body.get("config")
        return cls(
            run_id=body.get("run_id"),
            criteria=None
            if document is None
            else criteria_of(document, specs, "the criteria given"),
            judge=judge_settings(body.get("judge")),
            since_s=body.get("since_s"),
            sample=body.get("sample"),
            where=body.get("where"),
            check_judges=bool(body.get("check_judges")),
            evalset=_evalset_of(body.get("evalset")),
        )


WIRE_FIELDS = (
    "run_id", "config", "judge", "check_judges", "since_s", "sample", "where", "evalset"
)  # fmt: skip


def _evalset_of(document: Any) -> EvalSetCases | None:
    """The body's `evalset` checked against the cases' schema; the first error is named by
    its place in the body (`evalset.cases[0].turns[1].user_text`)."""
    if document is None:
        return None
    try:
        return EvalSetCases.model_validate(document)
    except ValidationError as exc:
        error = exc.errors()[0]
        place = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error["loc"])
        raise ConfigError(f"evalset{place}: {error['msg'].lower()}") from None


def _check_fields(body: dict[str, Any]) -> None:
    """Each field of the body has the type it needs, or a `ConfigError` names it."""
    unknown = sorted(set(body) - set(WIRE_FIELDS))
    if unknown:
        raise ConfigError(f"unknown field {unknown[0]!r}: the fields are {', '.join(WIRE_FIELDS)}")
    if body.get("check_judges") not in (None, True, False):
        raise ConfigError(f"check_judges {body['check_judges']!r}: must be true or false")
    for key, (kind, name) in _FIELD_TYPES.items():
        value = body.get(key)
        if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
            raise ConfigError(f"{key} {value!r}: must be {name}")


_FIELD_TYPES: dict[str, tuple[type | tuple[type, ...], str]] = {
    "run_id": (str, "a string"),
    "config": (dict, "a criteria object"),
    "judge": (dict, "an object of judge settings"),
    "since_s": ((int, float), "a number of seconds"),
    "sample": ((int, float), "a number between 0 and 1"),
    "where": (str, "a SQL condition (a string)"),
    "evalset": (dict, "an object of an eval set's cases (source, cases)"),
}
_MAX_SINCE_S = 100 * 365 * 86400  # past this, a timedelta overflows; nothing is that old
