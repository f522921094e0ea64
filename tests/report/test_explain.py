"""The one-line reasons and call formatting the failure explanations use."""

from __future__ import annotations

from typing import Any

import pytest

from tests.report.helpers import compare_golden
from tracegrade.report.explain import trajectory_reason
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
        ([c("show_cart", {})], [c("show_cart")], "show_cart: args not captured"),
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
