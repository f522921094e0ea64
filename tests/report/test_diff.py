"""`diff_runs`: regressions, fixes, changed trajectories and costs between two runs."""

from __future__ import annotations

import json
from pathlib import Path

from tests.report.helpers import BASE_RUN, NEXT_RUN, score_with
from tests.support.cli import invoke
from tests.support.paths import DATA
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.exit_codes import ExitCode
from tracegrade.harness import RunOptions, run_eval
from tracegrade.report import DiffTolerances, RunDiff, diff_runs, render_diff
from tracegrade.scoring import Selection
from tracegrade.store import LocalReader, SpanWriter

SHOP = DATA / "evalsets" / "harness" / "shop.evalset.json"
SHOP_AGENT = "tests.harness.shop_agent.agent:root_agent"


def _kinds(diff: RunDiff) -> dict[str, list[str]]:
    return {f"{c.eval_set_id}/{c.case_id}": [x.kind for x in c.changes] for c in diff.cases}


def test_a_regression_a_fix_and_a_changed_trajectory(reader: LocalReader) -> None:
    diff = diff_runs(reader, BASE_RUN, NEXT_RUN)
    assert diff.regressed
    kinds = _kinds(diff)
    assert kinds["shop/transfer"] == [
        "regressed",
        "trajectory_changed",
        "more_tool_calls",
        "latency_up",
        "tokens_up",
    ]
    assert kinds["extras/pear_price"] == ["fixed"]
    assert kinds["shop/two_turns_with_state"] == ["cost_up", "tokens_up"]
    assert kinds["shop/pear_only"] == kinds["shop/tool_crash"] == []
    transfer = next(c for c in diff.cases if c.case_id == "transfer")
    assert transfer.changes[1].message == (
        "tools called transfer_to_agent, show_cart → show_cart, transfer_to_agent, show_cart"
    )
    assert "REGRESSION" in render_diff(diff)


def test_identical_runs_do_not_regress(reader: LocalReader) -> None:
    diff = diff_runs(reader, BASE_RUN, BASE_RUN)
    assert not diff.regressed
    assert all(not c.changes for c in diff.cases)
    assert (diff.only_in_base, diff.only_in_new) == ([], [])
    assert "No regression → exit code 0" in render_diff(diff)


def test_direction_matters(reader: LocalReader) -> None:
    diff = diff_runs(reader, NEXT_RUN, BASE_RUN)
    assert diff.regressed  # pear_price passed in the new run, is flaky in the base
    assert _kinds(diff)["extras/pear_price"] == ["regressed"]
    assert _kinds(diff)["shop/transfer"][0] == "fixed"


def test_tolerances_decide_what_is_worth_reporting(reader: LocalReader) -> None:
    loose = DiffTolerances(latency_pct=50, cost_pct=100, tokens_pct=200, tool_calls=1)
    kinds = _kinds(diff_runs(reader, BASE_RUN, NEXT_RUN, loose))
    assert kinds["shop/transfer"] == ["regressed", "trajectory_changed"]
    assert kinds["shop/two_turns_with_state"] == []
    # Latency must also rise by more than latency_ms: a rise of 20%+ that is under it is jitter.
    steady = DiffTolerances(latency_pct=0, latency_ms=10_000)
    transfer = _kinds(diff_runs(reader, BASE_RUN, NEXT_RUN, steady))["shop/transfer"]
    assert "latency_up" not in transfer


@costly
def test_changed_eval_set_cases_only_in_one_run(
    captured: BlockingSpanProcessor, writer: SpanWriter, tmp_path: Path
) -> None:
    base = run_eval(RunOptions(eval_sets=[str(SHOP)], agent=SHOP_AGENT)).run_id
    changed = _changed_shop_eval_set(tmp_path)
    new = run_eval(RunOptions(eval_sets=[str(changed)], agent=SHOP_AGENT)).run_id
    assert captured.force_flush()
    for run_id in (base, new):
        score_with(writer.connection, Selection(run_id=run_id), {})

    # Two real runs: their latencies differ by chance, so latency is out of this comparison.
    timing_free = DiffTolerances(latency_ms=60_000)
    diff = diff_runs(LocalReader(writer.connection), base, new, timing_free)
    assert diff.regressed
    assert diff.only_in_base == ["shop/model_crash"]
    assert diff.only_in_new == ["shop/transfer_again"]
    assert (diff.totals.gone, diff.totals.new, diff.totals.regressed) == (1, 1, 1)
    # The agent did the same: only the expectation moved, so the trajectory did not change.
    assert _kinds(diff)["shop/transfer"] == ["regressed"]
    text = render_diff(diff)
    assert "only in the base run: shop/model_crash" in text
    assert "only in the new run: shop/transfer_again" in text


def _changed_shop_eval_set(folder: Path) -> Path:
    """The shop eval set without model_crash, with a stricter transfer, and a new case."""
    document = json.loads(SHOP.read_text())
    cases = [c for c in document["eval_cases"] if c["eval_id"] != "model_crash"]
    transfer = next(c for c in cases if c["eval_id"] == "transfer")
    again = json.loads(json.dumps(transfer))
    again["eval_id"] = "transfer_again"
    calls = transfer["conversation"][0]["intermediate_data"]["tool_uses"]
    calls[1]["args"] = {"verbose": True}  # the agent calls show_cart({}): now a failure
    document["eval_cases"] = [*cases, again]
    path = folder / "shop.evalset.json"
    path.write_text(json.dumps(document))
    return path


def _priced(input_usd: float) -> dict[str, object]:
    prices = {m: {"input": input_usd, "output": 1.0} for m in ("shop-model", "billing-model")}
    return {"criteria": {"tool_trajectory_avg_score": 1.0}, "tracegrade": {"prices": prices}}


@costly
def test_a_tolerance_exceeded_alone_is_a_regression(
    captured: BlockingSpanProcessor, writer: SpanWriter, db_path: Path
) -> None:
    runs = [run_eval(RunOptions(eval_sets=[str(SHOP)], agent=SHOP_AGENT)).run_id for _ in "ab"]
    assert captured.force_flush()
    # The same answers, at twice the price: only the cost changed.
    for run_id, input_usd in zip(runs, (1.0, 2.0), strict=True):
        score_with(writer.connection, Selection(run_id=run_id), _priced(input_usd))
    writer.close()

    done = invoke("diff", *runs, "--latency-ms", "60000", "--db", str(db_path))
    lenient = invoke(
        "diff", *runs, "--latency-ms", "60000", "--cost-pct", "200", "--db", str(db_path)
    )

    assert done.exit_code == ExitCode.GATE_FAILED, done.output
    assert (
        "WORSE shop/pear_only\n"
        "  cost per repeat worse beyond tolerance, still failing\n"
        "    cost per repeat $0.000351 → $0.000686 (+95%, tolerance 10%)\n"
    ) in done.stdout
    assert done.stdout.splitlines()[-1] == (
        "REGRESSION: 2 cases got worse beyond a tolerance → exit code 1 (quality gate failed)"
    )
    assert lenient.exit_code == ExitCode.OK, lenient.output
    assert "No regression → exit code 0" in lenient.stdout
