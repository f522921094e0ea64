"""Replaying eval sets through a real ADK agent; what the spans and views record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.support.paths import DATA
from tests.support.tiers import costly
from tests.support.views import dict_rows
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.errors import AgentLoadError
from tracegrade.harness import RunOptions, RunResult, load_agent, run_eval
from tracegrade.store import SpanWriter

SHOP = DATA / "evalsets" / "harness" / "shop.evalset.json"
AGENT = "tests.harness.shop_agent.agent:root_agent"


def _run(captured: BlockingSpanProcessor, **options: Any) -> RunResult:
    defaults: dict[str, Any] = {"eval_sets": [str(SHOP)], "agent": AGENT}
    result = run_eval(RunOptions(**(defaults | options)))
    assert captured.force_flush()
    return result


def _trajectories(
    connection: duckdb.DuckDBPyConnection, run_id: str
) -> dict[tuple[str, int, int], Any]:
    rows = dict_rows(
        connection,
        """
        SELECT t.case_id, t.repeat, t.turn_index, t.is_error, t.final_text,
               list({'name': c.name, 'args': c.args, 'result': c.result} ORDER BY c.seq)
                   FILTER (c.seq IS NOT NULL) AS calls
        FROM turns t LEFT JOIN tool_calls c USING (turn_id)
        WHERE t.run_id = ?
        GROUP BY ALL
        """,
        run_id,
    )
    return {
        (r["case_id"], r["repeat"], r["turn_index"]): (r["is_error"], r["final_text"], r["calls"])
        for r in rows
    }


@costly
def test_turns_share_a_session_seeded_from_session_input(
    captured: BlockingSpanProcessor, writer: SpanWriter
) -> None:
    result = _run(captured)
    turns = _trajectories(writer.connection, result.run_id)
    _, _, first = turns[("two_turns_with_state", 0, 0)]
    _, final, second = turns[("two_turns_with_state", 0, 1)]
    # The initial state holds milk; turn 2 sees what turn 1 added.
    assert json.loads(first[0]["result"]) == {"cart": {"milk": 1, "apple": 2}}
    assert json.loads(second[0]["result"]) == {"cart": {"milk": 1, "apple": 2}, "owner": "ann"}
    assert final == "Your cart is ready."
    sessions = dict_rows(
        writer.connection,
        "SELECT DISTINCT session_id, user_id FROM turns WHERE case_id = 'two_turns_with_state'",
    )
    assert len(sessions) == 1
    assert sessions[0]["user_id"] == "ann"


@costly
def test_nothing_leaks_between_cases_in_any_order_or_concurrency(
    captured: BlockingSpanProcessor, writer: SpanWriter, tmp_path: Path
) -> None:
    reordered = tmp_path / "shop_reversed.evalset.json"
    data = json.loads(SHOP.read_text())
    data["eval_cases"].reverse()
    reordered.write_text(json.dumps(data))

    sequential = _run(captured)
    backwards = _run(captured, eval_sets=[str(reordered)])
    concurrent = _run(captured, parallel=4)

    baseline = _trajectories(writer.connection, sequential.run_id)
    assert _trajectories(writer.connection, backwards.run_id) == baseline
    assert _trajectories(writer.connection, concurrent.run_id) == baseline
    _, _, pear = baseline[("pear_only", 0, 1)]
    assert json.loads(pear[0]["result"]) == {"cart": {"pear": 1}, "owner": None}


@costly
def test_repeats_are_kept_apart(captured: BlockingSpanProcessor, writer: SpanWriter) -> None:
    result = _run(captured, repeats=3, parallel=2)
    rows = dict_rows(
        writer.connection,
        """
        SELECT repeat, count(*) AS turns, count(DISTINCT session_id) AS sessions
        FROM turns WHERE run_id = ? AND case_id = 'two_turns_with_state'
        GROUP BY repeat ORDER BY repeat
        """,
        result.run_id,
    )
    assert rows == [{"repeat": r, "turns": 2, "sessions": 1} for r in range(3)]
    sessions = dict_rows(
        writer.connection,
        "SELECT count(DISTINCT session_id) AS n FROM turns WHERE run_id = ?",
        result.run_id,
    )
    assert sessions[0]["n"] == 5 * 3
    assert len(result.outcomes) == 5 * 3


@costly
def test_crashes_are_errors_and_the_run_goes_on(
    captured: BlockingSpanProcessor, writer: SpanWriter
) -> None:
    result = _run(captured)
    rows = dict_rows(
        writer.connection,
        """
        SELECT case_id, turn_index, is_error, error_type, error_message
        FROM turns WHERE run_id = ? AND case_id IN ('tool_crash', 'model_crash')
        ORDER BY case_id, turn_index
        """,
        result.run_id,
    )
    assert rows == [
        {
            "case_id": "model_crash",
            "turn_index": 0,
            "is_error": True,
            "error_type": "RuntimeError",
            "error_message": "RuntimeError: model backend unavailable",
        },
        {
            "case_id": "tool_crash",
            "turn_index": 0,
            "is_error": True,
            "error_type": "RuntimeError",
            "error_message": "RuntimeError: payment service down (3.5)",
        },
        {
            "case_id": "tool_crash",
            "turn_index": 1,
            "is_error": True,
            "error_type": "skipped",
            "error_message": "skipped: turn 0 failed",
        },
    ]
    assert sorted(o.case_id for o in result.errors) == ["model_crash", "tool_crash"]
    finished = {o.case_id for o in result.outcomes if not o.error}
    assert finished == {"two_turns_with_state", "pear_only", "transfer"}


@costly
def test_sub_agent_transfer_is_in_the_trajectory(
    captured: BlockingSpanProcessor, writer: SpanWriter
) -> None:
    result = _run(captured)
    _, final, calls = _trajectories(writer.connection, result.run_id)[("transfer", 0, 0)]
    assert [c["name"] for c in calls] == ["transfer_to_agent", "show_cart"]
    assert final == "Billing here."


def test_the_run_and_its_expectations_are_recorded(
    captured: BlockingSpanProcessor, writer: SpanWriter
) -> None:
    result = _run(captured, repeats=2)
    run = dict_rows(writer.connection, "SELECT * FROM eval_runs WHERE run_id = ?", result.run_id)[0]
    assert run["agent"] == AGENT
    assert run["models"] == ["billing-model", "shop-model"]
    assert run["repeats"] == 2
    assert run["cases"] == 5
    eval_sets = json.loads(run["eval_sets"])
    assert [(s["eval_set_id"], s["cases"]) for s in eval_sets] == [("shop", 5)]
    assert len(eval_sets[0]["sha256"]) == 64
    assert run["adk_version"].startswith("2.")

    expected = dict_rows(
        writer.connection,
        """
        SELECT case_id, turn_index, seq, name, args FROM expected_tool_calls
        WHERE run_id = ? AND case_id IN ('pear_only', 'transfer') ORDER BY case_id, turn_index, seq
        """,
        result.run_id,
    )
    assert [(e["case_id"], e["turn_index"], e["seq"], e["name"]) for e in expected] == [
        ("pear_only", 0, 1, "add_item"),
        ("pear_only", 1, 1, "show_cart"),
        ("transfer", 0, 1, "transfer_to_agent"),
        ("transfer", 0, 2, "show_cart"),
    ]
    assert json.loads(expected[0]["args"]) == {"item": "pear", "quantity": 1.0}
    assert json.loads(expected[1]["args"]) == {"verbose": True}
    assert expected[3]["args"] is None  # no args given, which is not {}
    texts = dict_rows(
        writer.connection,
        "SELECT user_text, final_text FROM expected_turns "
        "WHERE run_id = ? AND case_id = 'pear_only' ORDER BY turn_index",
        result.run_id,
    )
    assert texts == [
        {"user_text": "Add a pear", "final_text": "Added a pear."},
        {"user_text": "What is in my cart?", "final_text": None},
    ]


def test_a_turn_that_hangs_times_out_as_an_error(
    captured: BlockingSpanProcessor, writer: SpanWriter, tmp_path: Path
) -> None:
    slow = tmp_path / "slow.evalset.json"
    slow.write_text(
        json.dumps(
            {
                "eval_set_id": "slow",
                "eval_cases": [
                    {
                        "eval_id": "slow",
                        "conversation": [{"user_content": {"parts": [{"text": "Slow question"}]}}],
                    }
                ],
            }
        )
    )
    result = _run(captured, eval_sets=[str(slow)], turn_timeout_s=0.2)
    assert result.outcomes[0].error == "TimeoutError: the turn took longer than 0.2s"


@pytest.mark.parametrize(
    ("reference", "message"),
    [
        (
            "tests.harness.no_such_module:root_agent",
            "no module named 'tests.harness.no_such_module'",
        ),
        ("tests.harness.shop_agent.agent:nothing", "has no attribute 'nothing'"),
        ("tests.harness.shop_agent.agent:SCRIPT", "is a dict, not a google-adk agent"),
    ],
)
def test_bad_agent_references_are_clear(reference: str, message: str) -> None:
    with pytest.raises(AgentLoadError, match=message):
        load_agent(reference)


def test_agent_folder_loads_like_adk_eval() -> None:
    folder = Path(__file__).parent / "shop_agent"
    assert load_agent(str(folder)).name == "shop"
