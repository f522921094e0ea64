"""The one-line reasons and call formatting the failure explanations use."""

from __future__ import annotations

from typing import Any

import pytest

from tests.report.helpers import compare_golden
from tracegrade.report.explain import as_lines, failures, trajectory_reason
from tracegrade.report.models import (
    CaseReport,
    Criterion,
    ErrorInfo,
    MetricScore,
    RepeatReport,
    ToolCall,
    TurnReport,
)
from tracegrade.report.values import call


def c(name: str, args: Any = None) -> dict[str, Any]:
    return {"name": name, "args": args}


@pytest.mark.parametrize(
    ("expected", "actual", "reason"),
    [
        (
            [c("show_cart")],
            [c("show_cart", {})],
            "expected show_cart() with no args, got show_cart({})",
        ),
        (
            [c("show_cart", {})],
            [c("show_cart")],
            "expected show_cart({}), got show_cart() with no args",
        ),
        (
            [c("add", {"item": "pear", "n": 1})],
            [c("add", {"item": "apple", "n": 1, "note": "x"})],
            'add: item expected "pear", got "apple"; unexpected note="x"',
        ),
        ([c("add", {"n": 1})], [c("add", {})], "add: n missing (expected 1)"),
        (
            [c("a", {}), c("b", {})],
            [c("b", {}), c("a", {})],
            "same calls in a different order: expected a, b, got b, a",
        ),
        (
            [c("transfer", {"to": "billing"}), c("show", {})],
            [c("show", {}), c("transfer", {"to": "billing"}), c("show", {})],
            "expected 2 calls, got 3: unexpected show({})",
        ),
        ([c("price", {"item": "pear"})], [], 'expected 1 call, got 0: missing price(item="pear")'),
        ([], [c("pay", {"amount": 3.5})], "expected 0 calls, got 1: unexpected pay(amount=3.5)"),
    ],
)
def test_trajectory_reason(
    expected: list[dict[str, Any]], actual: list[dict[str, Any]], reason: str
) -> None:
    assert trajectory_reason(expected, actual, "EXACT") == reason


def test_other_match_types_are_named() -> None:
    reason = trajectory_reason([c("a", {})], [c("b", {})], "IN_ORDER")
    assert reason == "expected 1 call, got 1: missing a({}); unexpected b({}) (IN_ORDER match)"


def test_calls_tell_no_args_from_empty_and_uncaptured() -> None:
    assert call("f", None) == "f()"
    assert call("f", {}) == "f({})"
    assert call("f", None, captured=False) == "f(?)"
    assert call("f", {"city": "Paris", "n": [1, 2]}) == 'f(city="Paris", n=[1, 2])'


def test_a_changed_golden_file_fails_with_a_unified_diff(tmp_path: Any) -> None:
    path = tmp_path / "report.txt"
    path.write_text("same\nold\n")
    compare_golden(path, "same\nold\n", update=False)
    with pytest.raises(pytest.fail.Exception) as failure:
        compare_golden(path, "same\nnew\n", update=False)
    assert "--update-golden" in str(failure.value)
    assert "-old\n+new" in str(failure.value)
    compare_golden(path, "same\nnew\n", update=True)
    assert path.read_text() == "same\nnew\n"


def _failed_turn(calls: list[ToolCall]) -> CaseReport:
    score = MetricScore(
        metric="tool_trajectory_avg_score", score=0.0, threshold=1.0, status="failed", gating=True
    )
    # Only the fields the explanation reads (model_construct skips validation).
    turn: dict[str, Any] = {
        "turn_index": 0,
        "turn_id": "t1-s1",
        "user_text": "Find isbn 000",
        "tool_calls": calls,
        "scores": [score],
    }
    repeat = RepeatReport(
        repeat=0, verdict="failed", scores=[], turns=[TurnReport.model_construct(**turn)]
    )
    case: dict[str, Any] = {"repeat_results": [repeat]}
    return CaseReport.model_construct(**case)


def test_a_failed_turn_names_its_failed_calls_with_the_tools_own_message() -> None:
    returned = ToolCall(
        name="lookup",
        args={"isbn": "000"},
        args_captured=True,
        error=ErrorInfo(type="TOOL_ERROR", message="unknown isbn 000"),
    )
    raised = ToolCall(
        name="pay",
        args={},
        args_captured=True,
        error=ErrorInfo(type="ValueError", message="ValueError: card declined"),
    )
    fine = ToolCall(name="show", args={}, args_captured=True)
    criteria = [
        Criterion(
            metric="tool_trajectory_avg_score",
            better="higher",
            threshold=1.0,
            max=None,
            p50=None,
            p95=None,
        )
    ]

    [finding] = failures(_failed_turn([returned, raised, fine]), criteria)

    assert as_lines(finding)[-2:] == [
        '  tool lookup(isbn="000") returned an error: unknown isbn 000',
        "  tool pay({}) raised: ValueError: card declined",
    ]
