"""What a front end gets back: a scoring's verdict and exit code, an eval run's too."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from tracegrade.exit_codes import ExitCode


class _Result(BaseModel):
    # A server newer than this client may answer with more: what is known is read.
    model_config = ConfigDict(frozen=True, extra="ignore")


class ScoreResult(_Result):
    """One scoring, stored: what the gate decided. The JSON answer of POST /v1/score."""

    scoring_id: str
    run_id: str | None = Field(description="the eval run scored; None for traffic")
    turns: int
    verdict: str = Field(description="passed, failed, error, not_evaluated or incomplete")
    exit_code: ExitCode
    matching: MatchReport | None = Field(
        default=None, description="`evalset` scorings: what matched and what did not"
    )


class UnmatchedCase(_Result):
    """A case of the eval set no stored session was scored as, and why."""

    eval_set_id: str
    case_id: str
    reason: str


class UnmatchedSession(_Result):
    """A stored session of no eval run that was not scored: it matched no case, or more
    than one (`matches`). `session_id` None: a turn that recorded no session."""

    session_id: str | None
    turns: int
    user_texts: tuple[str | None, ...]
    matches: tuple[str, ...] = ()


class MatchReport(_Result):
    """`score --evalset`: which sessions were scored as which cases, and what was not."""

    evalset: str
    matched_sessions: int
    matched_cases: int
    unmatched_cases: tuple[UnmatchedCase, ...] = ()
    unmatched_sessions: tuple[UnmatchedSession, ...] = ()


class JudgesResolved(_Result):
    """The answer to a `check_judges` request: every judge the criteria name resolves."""

    judges_resolved: bool = True


class SkippedCase(_Result):
    """A case the harness cannot replay, and why."""

    eval_set_id: str
    case_id: str
    reason: str


class EvalResult(_Result):
    """An eval run replayed, captured and scored."""

    run_id: str
    scoring: ScoreResult
    spans_lost: int = Field(
        default=0, description="spans lost while capturing: turns may be incomplete"
    )
    not_replayable: tuple[SkippedCase, ...] = ()

    @property
    def scoring_id(self) -> str:
        return self.scoring.scoring_id

    @property
    def verdict(self) -> str:
        return self.scoring.verdict

    @property
    def exit_code(self) -> ExitCode:
        return self.scoring.exit_code


ScoreResult.model_rebuild()  # its `matching` names MatchReport, defined after it
