"""The run report's cost grows linearly with the run: a synthetic run of 50k turns (10k
cases of 5 repeats) is built from canned rows, and its build must cost about ten times a
5k-turn run's, not a hundred times (the old per-case scan of every repeat was quadratic:
500 million steps at 50k turns; the ratio, not the size, tells the two apart). Process CPU
time, not wall time, so a loaded machine does not decide, with the cyclic collector off; the
bound (40x for 10x the turns, against the quadratic 100x) leaves room for the noise of a
shared machine."""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Sequence
from typing import Any

from tests.support.tiers import costly
from tracegrade.report import build_report
from tracegrade.store.reader import Rows

pytestmark = costly  # every test here: see tests.support.tiers.costly

REPEATS = 5


class SyntheticRun:
    """A `Reader` answering the report's queries for a run of `turns` one-turn repeats."""

    def __init__(self, turns: int) -> None:
        self.turns = turns

    def query(self, sql: str, params: Sequence[Any] = ()) -> tuple[list[str], Rows]:
        if "FROM scorings" in sql:
            return self._scoring()
        if "FROM eval_runs" in sql:
            return self._run()
        if "FROM case_results" in sql:
            return self._cases()
        if "FROM turns" in sql:
            return self._turns()
        if "FROM tool_calls" in sql:
            return self._calls()
        if "FROM scores" in sql:
            return self._scores(str(params[1]))
        if "FROM duckdb_tables()" in sql:  # no turn facts: read through the views
            return ["found"], [(0,)]
        if "FROM judge_usage" in sql:  # no judged metric
            return ["metric"], []
        if "FROM simulator_calls" in sql:  # no conversation scenario
            return ["conversations"], [(0,)]
        raise AssertionError(f"unexpected query: {sql}")

    def _key(self, i: int) -> tuple[str, str, int]:
        return "set", f"case{i // REPEATS:07d}", i % REPEATS

    def _scoring(self) -> tuple[list[str], Rows]:
        config = {"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0}}}
        columns = ["scoring_id", "scored_us", "run_id", "selection", "config", "turns"]
        columns += ["error_rate", "verdict", "exit_code", "tracegrade_version"]
        row = ("s1", 0, "run", "{}", json.dumps(config), self.turns, 0.0, "passed", 0, "x")
        return columns, [row]

    def _run(self) -> tuple[list[str], Rows]:
        columns = ["run_id", "started_us", "agent", "eval_sets", "models", "repeats"]
        columns += ["parallel", "cases", "adk_version", "tracegrade_version", "git_commit"]
        sets = json.dumps([{"eval_set_id": "set", "cases": self.turns // REPEATS}])
        row = ("run", 0, "a", sets, ["m"], REPEATS, 1, self.turns // REPEATS, "2", "x", None)
        return columns, [row]

    def _cases(self) -> tuple[list[str], Rows]:
        columns = ["eval_set_id", "case_id", "repeats", "passed_repeats", "failed_repeats"]
        columns += ["errored_repeats", "verdict", "flaky", "failed_metrics"]
        rows: Rows = [
            ("set", f"case{c:07d}", REPEATS, REPEATS, 0, 0, "passed", False, [])
            for c in range(self.turns // REPEATS)
        ]
        return columns, rows

    def _turns(self) -> tuple[list[str], Rows]:
        columns = ["eval_set_id", "case_id", "repeat", "turn_index", "turn_id", "trace_id"]
        columns += ["user_text", "final_text", "reference_text", "latency_ms", "input_tokens"]
        columns += ["output_tokens", "total_tokens", "models", "is_error", "error_type"]
        columns += ["error_message"]
        rows: Rows = [
            (*self._key(i), 0, f"t{i}", f"tr{i}", "q", "a", "a", 10.0 + i % 7, 5, 5, 10, ["m"],
             False, None, None)
            for i in range(self.turns)
        ]  # fmt: skip
        return columns, rows

    def _calls(self) -> tuple[list[str], Rows]:
        columns = ["turn_id", "seq", "name", "args", "args_captured", "is_error", "error_type"]
        columns += ["error_message"]
        return columns, [
            (f"t{i}", 1, "f", "{}", True, False, None, None) for i in range(self.turns)
        ]

    def _scores(self, level: str) -> tuple[list[str], Rows]:
        columns = ["eval_set_id", "case_id", "repeat", "turn_index", "turn_id", "metric", "score"]
        columns += ["threshold", "status", "detail"]
        metric = "tool_trajectory_avg_score"
        if level == "run":
            return columns, [(None, None, None, None, None, metric, 1.0, 1.0, "passed", "{}")]
        turn = level == "turn"
        rows: Rows = [
            (*self._key(i), 0 if turn else None, f"t{i}" if turn else None, metric, 1.0, 1.0,
             "passed", None)
            for i in range(self.turns)
        ]  # fmt: skip
        return columns, rows


def _cpu_seconds(turns: int) -> float:
    reader = SyntheticRun(turns)
    # Python's cyclic collector runs more often, over more objects, as the live heap grows:
    # left on, it alone bends the curve of a linear build (30x for 10x was seen with two
    # test processes sharing the cores).
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        report = build_report(reader)
        seconds = time.process_time() - start
    finally:
        gc.enable()
    assert report.totals.turns == turns
    assert len(report.cases) == turns // REPEATS
    assert all(len(c.repeat_results) == REPEATS for c in report.cases)
    return seconds


def test_the_report_is_linear_in_turns() -> None:
    small = min(_cpu_seconds(5_000) for _ in range(2))  # the quieter of two
    large = min(_cpu_seconds(50_000) for _ in range(2))
    assert large < 40 * small, f"5k turns {small:.2f} s CPU, 50k turns {large:.2f} s"
