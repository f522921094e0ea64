"""An eval run from request to stored scores: check, replay, capture, score.

`prepare_eval` checks everything the run needs before any case runs (criteria, baseline,
the agent and eval sets, the judges, the server that will score); `run_prepared` replays
the plan with its spans captured and scores the run. Locally the spans go straight into
the DuckDB file and are scored there. Over OTLP they go to a Collector (or straight to
`tracegrade serve`); once the server holds every turn of the run it scores them, since
only it may write to its file.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from tracegrade.capture import Capture, CaptureStats, configure, configure_otlp
from tracegrade.errors import ConfigError, TracegradeError
from tracegrade.harness import RunOptions, RunPlan, RunResult, agent_source, execute, plan_run
from tracegrade.harness.run import Progress
from tracegrade.remote import RemoteDatabase, RemoteError
from tracegrade.report.baseline import Baseline
from tracegrade.scoring.config_file import allowing_not_evaluated, with_judge_import
from tracegrade.scoring.judging import check_judges, judges_resolve
from tracegrade.workspace.requests import Criteria, EvalRequest, ScoreRequest, load_criteria
from tracegrade.workspace.results import EvalResult, ScoreResult, SkippedCase
from tracegrade.workspace.store import Store


@dataclass
class PreparedEval:
    """A run checked and planned, nothing spent yet: what `run_prepared` replays."""

    request: EvalRequest
    store: Store
    criteria: Criteria
    """The criteria parsed once; what the run records and is scored with."""
    plan: RunPlan
    scoring_server: RemoteDatabase | None = None
    """Over OTLP: the serve the spans end up in, which scores them."""
    baseline: Baseline | None = None
    """The run (or report file) the report diffs against, resolved before the first case."""

    @property
    def warnings(self) -> list[str]:
        """What loading the eval sets noticed (keys ignored, ...), one line each."""
        return [w for loaded in self.plan.eval_sets for w in loaded.warnings]

    @property
    def not_replayable(self) -> tuple[SkippedCase, ...]:
        return tuple(
            SkippedCase(eval_set_id=case.eval_set_id, case_id=case.case_id, reason=why)
            for case, why in self.plan.not_replayable
        )


def prepare_eval(request: EvalRequest, store: Store) -> PreparedEval:
    """Check and plan the run; a `TracegradeError` says what is wrong before any case runs."""
    # What can be checked without the agent is, first: its import alone takes seconds.
    criteria = _criteria(request)
    baseline = _resolve_baseline(store, request)
    if request.allow_not_evaluated:
        criteria = allowing_not_evaluated(criteria)
    # Without the agent: a judge only its module registers is recorded as coming from it.
    judges_outside_agent = judges_resolve(criteria.config, criteria.specs)
    plan = plan_run(_run_options(request, criteria))
    # After the agent: a judge may live in its package, which loading it puts on the path.
    check_judges(criteria.config, criteria.specs)
    if not judges_outside_agent:
        criteria = _judges_from_agent(criteria, plan)
    server = None
    if request.otlp_endpoint:
        server = _scoring_server(store, request)
        _check_server_judges(server, criteria)  # it scores: it must know every judge first
    return PreparedEval(request, store, criteria, plan, server, baseline)


def run_prepared(
    prepared: PreparedEval, progress: Progress | None = None, wait_s: float = 300.0
) -> EvalResult:
    """Replay the plan, every span captured, and score the run where it is stored."""
    request, store, plan = prepared.request, prepared.store, prepared.plan
    score = ScoreRequest(run_id=plan.run_id, criteria=prepared.criteria, judge=request.judge)
    if prepared.scoring_server is not None and request.otlp_endpoint:
        run, stats = _replay(configure_otlp(request.otlp_endpoint), plan, progress)
        wait_for_run(prepared.scoring_server, run.run_id, _expected_turns(plan), wait_s)
        scored = ScoreResult.model_validate(prepared.scoring_server.score(score.to_wire()))
    else:
        kept = store.kept_capture
        if kept is None:
            run, stats = _replay(configure(store.db), plan, progress)
        else:
            run, stats = _replay_kept(kept, plan, progress), kept.stats()
            _require_turns(store, run)
        with store.scoring(prepared.criteria.metric_dirs) as target:
            scored = target.score(score)
    return EvalResult(
        run_id=run.run_id,
        scoring=scored,
        spans_lost=stats.lost,
        not_replayable=prepared.not_replayable,
    )


def evaluate(request: EvalRequest, store: Store, progress: Progress | None = None) -> EvalResult:
    """`prepare_eval` then `run_prepared`."""
    return run_prepared(prepare_eval(request, store), progress)


def _criteria(request: EvalRequest) -> Criteria:
    if isinstance(request.config, Criteria):
        return request.config
    return load_criteria(request.config, request.eval_sets, request.metric_dirs)


def _run_options(request: EvalRequest, criteria: Criteria) -> RunOptions:
    return RunOptions(
        eval_sets=list(request.eval_sets),
        agent=request.agent,
        repeats=request.repeats,
        parallel=request.parallel,
        turn_timeout_s=request.turn_timeout_s,
        criteria=criteria.raw or {},
        ignore_unknown_keys=request.ignore_unknown_keys,
        tags=list(request.tags),
    )


def _resolve_baseline(store: Store, request: EvalRequest) -> Baseline | None:
    """`--baseline`, resolved before any case runs (a typo costs nothing): `previous` is the
    latest stored run of this agent over these eval sets. A report file is read without
    opening the database, which a CI job on a fresh machine does not have yet."""
    from tracegrade.report.baseline import (
        PREVIOUS,
        BaselineError,
        Subject,
        is_report_file,
        resolve_baseline,
    )

    name = request.baseline
    if name is None:
        return None
    if is_report_file(name):
        return resolve_baseline(None, name)
    if store.server is None and not store.path.exists():
        raise BaselineError(
            f"--baseline {name}: no database at {store.path} to find it in; on a "
            "fresh machine give main's JSON report instead (--baseline main-report.json)"
        )
    eval_sets = [str(path) for path in request.eval_sets]
    subject = Subject.of_eval_sets(request.agent, eval_sets) if name == PREVIOUS else None
    with store.reader() as reader:
        return resolve_baseline(reader, name, subject)


def _judges_from_agent(criteria: Criteria, plan: RunPlan) -> Criteria:
    """The criteria the run records, naming the agent's module among `judge_imports`: a
    later `score --run`, or a server given it, finds the judges it registered again."""
    criteria = with_judge_import(criteria, agent_source(plan.options.agent))
    plan.options = plan.options.model_copy(update={"criteria": criteria.raw or {}})
    return criteria


def _scoring_server(store: Store, request: EvalRequest) -> RemoteDatabase:
    if request.metric_dirs:
        raise ConfigError("--metrics: with --otlp-endpoint the server scores, with its own metrics")
    return store.scoring_server()


def _check_server_judges(remote: RemoteDatabase, criteria: Criteria) -> None:
    """Refuse the run, before any case, if the server could not resolve its judges."""
    try:
        remote.score(ScoreRequest(criteria=criteria, check_judges=True).to_wire())
    except RemoteError as exc:
        if ": 400 " not in str(exc):  # not refused: unreachable, or no access, said as is
            raise
        imports = list(criteria.config.judge_imports) or ["MODULE"]
        start = " ".join(f"--judge-import {m}" for m in imports)
        reason = str(exc).partition(": 400 ")[2]
        raise TracegradeError(
            f"--server {remote.url}: it cannot score this run's judges ({reason}); "
            f"start it with `tracegrade serve ... {start}`"
        ) from None


def _replay(
    capture: Capture, plan: RunPlan, progress: Progress | None
) -> tuple[RunResult, CaptureStats]:
    """Every span of the run written (or sent) before this returns."""
    try:
        run = execute(plan, progress)
        capture.flush()
    finally:
        capture.shutdown()
    return run, capture.stats()


def _replay_kept(capture: Capture, plan: RunPlan, progress: Progress | None) -> RunResult:
    """The same, through a capture kept open (`Store.keep_capture`)."""
    run = execute(plan, progress)
    if not capture.flush():
        raise TracegradeError(f"spans of run {run.run_id} were not all stored in time")
    return run


def _require_turns(store: Store, run: RunResult) -> None:
    """A run's turns reached the file: a kept capture shares a tracer provider the host
    may have installed (not the SDK's: then nothing reaches tracegrade)."""
    with store.reader() as reader:
        _, found = reader.query("SELECT count(*) FROM turns WHERE run_id = ?", [run.run_id])
    if run.outcomes and found[0][0] == 0:
        raise TracegradeError(
            f"no spans of run {run.run_id} reached the database: a global OpenTelemetry "
            "tracer provider that is not the SDK's is installed, so tracegrade could not add "
            "its span processor to it"
        )


def wait_for_run(server: RemoteDatabase, run_id: str, turns: int, timeout_s: float) -> None:
    """Until every turn of the run has arrived, and then its span count stops growing
    (a Collector delivers a trace's spans in batches)."""
    deadline = time.monotonic() + timeout_s
    seen: tuple[int, int] = (-1, -1)
    while time.monotonic() < deadline:
        now = _arrived(server, run_id)
        if now[0] >= turns and now == seen:
            return
        seen = now
        time.sleep(0.5)
    raise TracegradeError(
        f"the server holds {seen[0]} of the run's {turns} turns after {timeout_s:g} s: "
        "is the Collector sending to it? (spans keep arriving; score later with "
        f"`tracegrade score --run {run_id}`)"
    )


def _arrived(server: RemoteDatabase, run_id: str) -> tuple[int, int]:
    _, rows = server.query(
        "SELECT count(*), (SELECT count(*) FROM spans WHERE trace_id IN "
        "(SELECT trace_id FROM turns WHERE run_id = ?)) FROM turns WHERE run_id = ?",
        [run_id, run_id],
    )
    return int(rows[0][0]), int(rows[0][1])


def _expected_turns(plan: RunPlan) -> int:
    return sum(len(case.turns) for case in plan.cases) * plan.options.repeats
