"""What a run report holds, checked against the stored run and its scoring."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.report.helpers import BASE_RUN, RUNS_FIXTURE, score_run, score_with
from tests.support.tiers import costly
from tracegrade.exit_codes import ExitCode
from tracegrade.ingest import ingest_file
from tracegrade.report import ReportError, RunReport, TurnReport, build_report, render_terminal
from tracegrade.report.models import ErrorInfo, ToolCall
from tracegrade.scoring import Selection
from tracegrade.store import LocalReader, SpanWriter, records


@pytest.fixture(scope="module")
def base(base_report: RunReport) -> RunReport:
    return base_report


def _turn(report: RunReport, case_id: str, repeat: int, turn_index: int) -> TurnReport:
    case = next(c for c in report.cases if c.case_id == case_id)
    return case.repeat_results[repeat].turns[turn_index]


def test_run_metadata_comes_from_the_run_record(base: RunReport) -> None:
    run = base.run
    assert run.run_id == BASE_RUN
    assert run.started_at == "2026-01-01T00:00:00Z"
    assert run.agent == "tests.data.report.shop_agents:base_agent"
    assert run.models == ["billing-model", "gemini-2.5-flash"]
    assert [(s.eval_set_id, s.cases) for s in run.eval_sets] == [("shop", 5), ("extras", 1)]
    assert all(s.sha256 is not None and len(s.sha256) == 64 for s in run.eval_sets)
    assert (run.repeats, run.parallel) == (2, 1)
    assert run.git_commit == "0123456789abcdef0123456789abcdef01234567"
    assert run.adk_version
    assert run.tracegrade_version


def test_verdicts_repeats_and_flakiness_agree_with_the_gate(
    base: RunReport, reader: LocalReader
) -> None:
    stored = records(
        reader,
        "SELECT case_id, verdict, passed_repeats, errored_repeats, flaky FROM case_results "
        "WHERE scoring_id = ? ORDER BY case_id",
        [base.scoring.scoring_id],
    )
    ours = [
        {
            "case_id": c.case_id,
            "verdict": c.verdict,
            "passed_repeats": c.passed_repeats,
            "errored_repeats": c.errored_repeats,
            "flaky": c.flaky,
        }
        for c in sorted(base.cases, key=lambda c: c.case_id)
    ]
    assert ours == stored
    flaky = next(c for c in base.cases if c.case_id == "pear_price")
    assert flaky.pass_at_k
    assert [r.verdict for r in flaky.repeat_results] == ["passed", "failed"]
    crashed = next(c for c in base.cases if c.case_id == "tool_crash")
    assert not crashed.pass_at_k
    assert {r.verdict for r in crashed.repeat_results} == {"error"}
    assert (base.verdict, base.exit_code) == ("failed", ExitCode.GATE_FAILED)
    assert (base.errored_repeats, base.total_repeats) == (4, 12)
    assert base.error_rate == pytest.approx(4 / 12)


def test_a_turn_holds_calls_texts_scores_tokens_cost_and_model(base: RunReport) -> None:
    turn = _turn(base, "pear_only", 0, 1)
    assert turn.user_text == "What is in my cart?"
    assert turn.final_text == "Your cart is ready."
    assert turn.reference_text is None  # the eval set gives none
    assert turn.tool_calls == [ToolCall(name="show_cart", args={}, args_captured=True)]
    assert turn.models == ["gemini-2.5-flash"]
    assert (turn.input_tokens, turn.output_tokens, turn.total_tokens) == (185, 7, 192)
    assert turn.cost_usd == pytest.approx((185 * 0.30 + 7 * 2.50) / 1e6)
    assert turn.latency_ms is not None
    assert turn.latency_ms > 0
    # Expected without args, and the model's response says it sent {}: ADK scores 0 (None != {}).
    trajectory = next(s for s in turn.scores if s.metric == "tool_trajectory_avg_score")
    assert (trajectory.score, trajectory.status, trajectory.gating) == (0.0, "failed", True)
    response = next(s for s in turn.scores if s.metric == "response_match_score")
    assert (response.score, response.status, response.detail["reference_missing"]) == (
        0.0,
        "failed",
        True,
    )
    assert {s.metric for s in turn.scores} >= {"latency", "token_usage", "cost_usd"}


def test_unpriced_models_leave_cost_unknown_never_zero(base: RunReport) -> None:
    transfer = _turn(base, "transfer", 0, 0)
    assert transfer.models == ["billing-model", "gemini-2.5-flash"]
    assert transfer.cost_usd is None
    turns = [t for c in base.cases for r in c.repeat_results for t in r.turns]
    priced = [t.cost_usd for t in turns if t.cost_usd is not None]
    assert 0 < base.totals.priced_turns == len(priced) < base.totals.turns
    assert base.totals.cost_usd == pytest.approx(sum(priced))


def test_errors_keep_their_type_and_message(base: RunReport) -> None:
    crashed = _turn(base, "tool_crash", 0, 0)
    assert crashed.error == ErrorInfo(
        type="RuntimeError", message="RuntimeError: payment service down (3.5)"
    )
    (pay,) = crashed.tool_calls
    assert pay.name == "pay"
    assert pay.error is not None
    assert "payment service down" in (pay.error.message or "")
    skipped = _turn(base, "tool_crash", 0, 1)
    assert skipped.error is not None
    assert skipped.error.type == "skipped"
    assert all(s.status == "error" for s in crashed.scores)


def test_run_metrics_name_the_budgets_broken(base: RunReport) -> None:
    latency = next(m for m in base.metrics if m.metric == "latency")
    assert latency.gating
    assert latency.status == "failed"
    assert latency.breached == ["p95 425 over budget 400"]
    tokens = next(m for m in base.metrics if m.metric == "token_usage")
    assert tokens.gating
    assert tokens.breached == []
    assert not next(m for m in base.metrics if m.metric == "cost_usd").gating


@costly
def test_the_latest_scoring_is_reported_unless_one_is_named(tmp_path: Path) -> None:
    writer = SpanWriter.open(tmp_path / "db.duckdb")
    try:
        ingest_file(RUNS_FIXTURE, writer)
        strict = score_run(writer.connection, BASE_RUN)
        lenient = score_with(
            writer.connection,
            Selection(run_id=BASE_RUN),
            {"criteria": {"tool_call_count": 5}, "tracegrade": {"max_error_rate": 0.5}},
        )
        reader = LocalReader(writer.connection)
        assert build_report(reader, run_id=BASE_RUN).scoring.scoring_id == lenient
        assert build_report(reader).scoring.scoring_id == lenient
        earlier = build_report(reader, scoring_id=strict)
        assert (earlier.scoring.scoring_id, earlier.verdict) == (strict, "failed")
        assert build_report(reader, scoring_id=lenient).verdict == "passed"
    finally:
        writer.close()


def test_unknown_runs_and_scorings_are_user_errors(reader: LocalReader) -> None:
    with pytest.raises(ReportError, match="no scoring 'nope'"):
        build_report(reader, scoring_id="nope")
    with pytest.raises(ReportError, match="no eval run 'nope': `tracegrade runs` lists"):
        build_report(reader, run_id="nope")


def test_the_summary_names_metrics_that_were_left_out(base: RunReport) -> None:
    reason = "needs an LLM judge or Vertex AI, which tracegrade does not run"
    scoring = base.scoring.model_copy(update={"not_evaluated": {"hallucinations_v1": reason}})
    text = render_terminal(base.model_copy(update={"scoring": scoring}))
    assert "Not evaluated in part (the cases were judged on their other criteria)\n" in text
    assert f"\n  hallucinations_v1: {reason}\n" in text
