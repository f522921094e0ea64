"""`build_report`: one scoring of one eval run, read back into a `RunReport`."""

from __future__ import annotations

from collections import defaultdict

from tracegrade.report import queries
from tracegrade.report.judges import judge_usage
from tracegrade.report.models import (
    CaseReport,
    ErrorInfo,
    MetricScore,
    RepeatReport,
    RunReport,
    ToolCall,
    TurnReport,
    Verdict,
)
from tracegrade.report.queries import CaseKey, Row
from tracegrade.report.simulator import simulator_usage
from tracegrade.report.summary import run_info, run_metrics, scoring_info, totals
from tracegrade.report.values import as_dict, as_float, as_int, as_json, as_list, as_str
from tracegrade.store.reader import Reader

COST_METRIC = "cost_usd"
RepeatKey = tuple[str, str, int]


def build_report(
    reader: Reader, scoring_id: str | None = None, run_id: str | None = None
) -> RunReport:
    """The given scoring; else the latest scoring of `run_id`; else of the latest scored run."""
    scoring = queries.find_run_scoring(reader, scoring_id, run_id, "the traffic report")
    run_id = str(scoring["run_id"])
    info = scoring_info(scoring)
    gating = {c.metric for c in info.criteria}
    sid = info.scoring_id
    run = run_info(queries.run_row(reader, run_id))
    cases = _cases(reader, run_id, sid, gating, None)
    # Eval sets in the order the run was given them, cases by id within each.
    order = {s.eval_set_id: i for i, s in enumerate(run.eval_sets)}
    cases.sort(key=lambda c: (order.get(c.eval_set_id, len(order)), c.eval_set_id, c.case_id))
    all_turns = [turn for case in cases for r in case.repeat_results for turn in r.turns]
    return RunReport(
        run=run,
        scoring=info,
        verdict=str(scoring["verdict"]),
        exit_code=int(scoring["exit_code"]),
        error_rate=as_float(scoring["error_rate"]),
        errored_repeats=sum(c.errored_repeats for c in cases),
        total_repeats=sum(c.repeats for c in cases),
        not_run_repeats=sum(max(0, (run.repeats or 1) - c.repeats) for c in cases),
        cases=cases,
        metrics=run_metrics(queries.score_rows(reader, sid, "run"), info.criteria),
        totals=totals(all_turns),
        judges=judge_usage(reader, sid),
        judge_errors=sum(
            1 for t in all_turns for s in t.scores if as_dict(s.detail).get("judge_error") is True
        ),
        simulator=simulator_usage(reader, run_id),
    )


def build_cases(reader: Reader, scoring_id: str, cases: list[CaseKey]) -> list[CaseReport]:
    """Only the given cases of a scoring, in full, as `build_report` shows them (in the
    order given): what the HTML pages show of a large run's worst cases without reading
    the rest."""
    scoring = queries.find_run_scoring(reader, scoring_id, None)
    gating = {c.metric for c in scoring_info(scoring).criteria}
    found = {
        (c.eval_set_id, c.case_id): c
        for c in _cases(reader, str(scoring["run_id"]), scoring_id, gating, cases)
    }
    return [found[key] for key in cases if key in found]


def _cases(
    reader: Reader, run_id: str, sid: str, gating: set[str], only: list[CaseKey] | None
) -> list[CaseReport]:
    turns = _turns(reader, run_id, sid, gating, only)
    repeats = _by_case(_repeats(turns, queries.score_rows(reader, sid, "case", only), gating))
    return [_case(row, repeats) for row in queries.case_rows(reader, sid, only)]


def _turns(
    reader: Reader, run_id: str, scoring_id: str, gating: set[str], only: list[CaseKey] | None
) -> dict[RepeatKey, list[TurnReport]]:
    facts = queries.from_facts(reader, run_id)
    turn_rows = queries.turn_rows(reader, run_id, facts, only)
    traces = sorted({str(t["trace_id"]) for t in turn_rows})
    calls: dict[str, list[ToolCall]] = defaultdict(list)
    for row in queries.call_rows(reader, traces, facts):
        calls[row["turn_id"]].append(_call(row))
    scores: dict[str, list[MetricScore]] = defaultdict(list)
    for row in queries.score_rows(reader, scoring_id, "turn", only):
        scores[row["turn_id"]].append(metric_score(row, gating))
    by_repeat: dict[RepeatKey, list[TurnReport]] = defaultdict(list)
    for row in turn_rows:
        turn = _turn(row, calls[row["turn_id"]], scores[row["turn_id"]])
        by_repeat[(row["eval_set_id"], row["case_id"], int(row["repeat"]))].append(turn)
    return by_repeat


def _turn(row: Row, calls: list[ToolCall], scores: list[MetricScore]) -> TurnReport:
    cost = next((s.score for s in scores if s.metric == COST_METRIC), None)
    return TurnReport(
        turn_index=int(row["turn_index"]),
        turn_id=str(row["turn_id"]),
        user_text=as_str(row["user_text"]),
        final_text=as_str(row["final_text"]),
        reference_text=as_str(row["reference_text"]),
        tool_calls=calls,
        scores=scores,
        latency_ms=as_float(row["latency_ms"]),
        input_tokens=as_int(row["input_tokens"]),
        output_tokens=as_int(row["output_tokens"]),
        total_tokens=as_int(row["total_tokens"]),
        cost_usd=cost,
        models=[str(m) for m in as_list(row["models"])],
        error=_error(row) if row["is_error"] else None,
    )


def _call(row: Row) -> ToolCall:
    return ToolCall(
        name=str(row["name"]),
        args=as_json(row["args"]),
        args_captured=bool(row["args_captured"]),
        error=_error(row) if row["is_error"] else None,
    )


def _error(row: Row) -> ErrorInfo:
    return ErrorInfo(type=as_str(row["error_type"]), message=as_str(row["error_message"]))


def metric_score(row: Row, gating: set[str]) -> MetricScore:
    """A row of `scores` as a MetricScore (`gating`: the metrics that gate)."""
    return MetricScore(
        metric=str(row["metric"]),
        score=as_float(row["score"]),
        threshold=as_float(row["threshold"]),
        status=str(row["status"]),
        gating=row["metric"] in gating,
        detail=as_json(row["detail"]),
    )


def _repeats(
    turns: dict[RepeatKey, list[TurnReport]], case_scores: list[Row], gating: set[str]
) -> dict[RepeatKey, RepeatReport]:
    scores: dict[RepeatKey, list[MetricScore]] = defaultdict(list)
    for row in case_scores:
        key = (row["eval_set_id"], row["case_id"], int(row["repeat"]))
        scores[key].append(metric_score(row, gating))
    return {
        key: RepeatReport(
            repeat=key[2],
            verdict=repeat_verdict([s.status for s in scores[key]]),
            scores=scores[key],
            turns=turns.get(key, []),
        )
        for key in sorted(turns.keys() | scores.keys())
    }


def repeat_verdict(statuses: list[str]) -> Verdict:
    """The gate's rule for one case repeat (scoring/verdict.py): an error in any metric
    makes it an error, else any failure a failure, else any pass a pass."""
    if "error" in statuses:
        return "error"
    if "failed" in statuses:
        return "failed"
    return "passed" if "passed" in statuses else "not_evaluated"


def _by_case(repeats: dict[RepeatKey, RepeatReport]) -> dict[CaseKey, list[RepeatReport]]:
    """Each case's repeats, in repeat order: one pass, so the report stays linear in turns."""
    grouped: dict[CaseKey, list[RepeatReport]] = defaultdict(list)
    for (eval_set_id, case_id, _), repeat in repeats.items():  # sorted by key
        grouped[(eval_set_id, case_id)].append(repeat)
    return grouped


def _case(row: Row, repeats: dict[CaseKey, list[RepeatReport]]) -> CaseReport:
    mine = repeats.get((row["eval_set_id"], row["case_id"]), [])
    return CaseReport(
        eval_set_id=str(row["eval_set_id"]),
        case_id=str(row["case_id"]),
        verdict=row["verdict"],
        repeats=int(row["repeats"]),
        passed_repeats=int(row["passed_repeats"]),
        failed_repeats=int(row["failed_repeats"]),
        errored_repeats=int(row["errored_repeats"]),
        flaky=bool(row["flaky"]),
        pass_at_k=int(row["passed_repeats"]) > 0,
        failed_metrics=[str(m) for m in as_list(row["failed_metrics"])],
        repeat_results=mine,
    )


def to_json(report: RunReport) -> str:
    """The JSON report, what people diff when the gate fails: every case, repeat and turn
    with its tool calls, texts, scores, latency, tokens, cost, models and errors. Keys keep
    the models' field order and lists are sorted, so the same data always gives the same
    text."""
    return report.model_dump_json(indent=2) + "\n"
