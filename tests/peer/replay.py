"""Running peer cases through a real agent into a database, and reading their scores back."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from google.adk.agents.base_agent import BaseAgent

from tests.support.adk_run import ROUTER
from tracegrade.capture import BlockingSpanProcessor, DuckDBSpanExporter
from tracegrade.evalset import LoadedEvalSet
from tracegrade.harness import RunOptions, RunPlan, execute, new_run_id
from tracegrade.scoring import ScoringConfig, Selection, available_metrics
from tracegrade.scoring.engine import prepare_inputs, score_loaded
from tracegrade.scoring.functions import register_functions
from tracegrade.store import SpanWriter

SPECS = available_metrics()
CaseScores = tuple[list[float | None], float | None, bool]
"""A metric on one case: its turn scores, the case score, and whether the case passed."""


def capture_run(
    writer: SpanWriter, eval_sets: Sequence[LoadedEvalSet], agent: BaseAgent
) -> Selection:
    """Replay every case of the eval sets through `agent` into `writer`'s database, and
    prepare the scorer inputs from the run's spans (once: `score_cases` scores what the
    inputs hold, so score a run before capturing the next)."""
    processor = BlockingSpanProcessor(DuckDBSpanExporter(writer=writer))
    ROUTER.target = processor
    try:
        paths = [str(s.path) for s in eval_sets]
        options = RunOptions(eval_sets=paths, agent="tests.peer (replay)", parallel=8)
        # Scenario cases need a simulated user's model: ADK's parity here is on fixed conversations.
        cases = [c for s in eval_sets for c in s.cases if c.replayable and c.scenario is None]
        execute(RunPlan(new_run_id(), options, list(eval_sets), agent, cases, []))
        assert processor.force_flush()
        run_id = writer.connection.execute(
            "SELECT run_id FROM eval_runs ORDER BY started_at DESC LIMIT 1"
        ).fetchall()[0][0]
    finally:
        ROUTER.target = None
        processor.shutdown()
    selection = Selection(run_id=str(run_id))
    register_functions(writer.connection)
    prepare_inputs(writer.connection, selection)
    return selection


@dataclass(frozen=True)
class ScoredCases:
    """One scoring read back, per (eval set, case): each metric's scores, and the verdict."""

    metrics: dict[tuple[str, str], dict[str, CaseScores]]
    verdicts: dict[tuple[str, str], str]


def score_cases(writer: SpanWriter, selection: Selection, config: ScoringConfig) -> ScoredCases:
    """Score the prepared inputs under `config`, with the engine's own levels and verdicts."""
    scoring = score_loaded(writer.connection, config, SPECS, selection)
    rows = writer.connection.execute(
        "SELECT eval_set_id, case_id, metric, level, score, status FROM scores "
        "WHERE scoring_id = ? AND level <> 'run' "
        "ORDER BY eval_set_id, case_id, metric, level, turn_index",
        [scoring.scoring_id],
    ).fetchall()
    metrics: dict[tuple[str, str], dict[str, CaseScores]] = {}
    for eval_set_id, case_id, metric, level, value, status in rows:
        case = metrics.setdefault((eval_set_id, case_id), {})
        turns, total, passed = case.get(metric, ([], None, False))
        if level == "turn":
            case[metric] = ([*turns, value], total, passed)
        else:
            case[metric] = (turns, value, status == "passed")
    verdicts = {(c.eval_set_id, c.case_id): c.verdict for c in scoring.cases}
    return ScoredCases(metrics, verdicts)


def scores_by_case(
    writer: SpanWriter, selection: Selection, config: ScoringConfig, metric: str
) -> dict[tuple[str, str], CaseScores]:
    """`metric`'s scores, per (eval set, case)."""
    scored = score_cases(writer, selection, config).metrics
    return {case: found[metric] for case, found in scored.items() if metric in found}


def same_scores(ours: tuple[Any, ...], adk: tuple[Any, ...]) -> bool:
    """Equal, floats to 1e-9 (ROUGE's F-measure is computed in another order)."""
    flat_ours = [*ours[0], *ours[1:]]
    flat_adk = [*adk[0], *adk[1:]]
    return len(ours[0]) == len(adk[0]) and all(
        a == b or (isinstance(a, float) and isinstance(b, float) and abs(a - b) <= 1e-9)
        for a, b in zip(flat_ours, flat_adk, strict=True)
    )
