"""What a test file asks for: which eval sets, which agent, which criteria.

Kept free of heavy imports: pytest imports the plugin in every run, used or not.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest

if TYPE_CHECKING:
    from tracegrade.workspace.requests import JudgeSettings

MARKER = "tracegrade_eval"

TestFunction = TypeVar("TestFunction", bound=Callable[..., object])


@dataclass(frozen=True)
class EvalCases:
    """Eval sets replayed through one agent, once per pytest session, scored by one config.

    Equal specs share one replay, so several tests may use the same eval set.
    """

    eval_sets: tuple[str, ...]
    agent: str
    config: str | None = None
    repeats: int | None = None
    parallel: int | None = None
    metric_dirs: tuple[str, ...] = ()
    judge: tuple[tuple[str, Any], ...] = ()
    """The judge settings given (`JudgeSettings` fields), as items: a spec is hashable."""
    turn_timeout_s: float = 600.0
    ignore_unknown_keys: bool = False
    allow_not_evaluated: bool = False

    def parametrize(self, function: TestFunction) -> TestFunction:
        """Mark a test with these eval cases: a `case_result` argument makes it one test
        per case; an `eval_run` argument gives it the whole run instead."""
        decorated: TestFunction = pytest.mark.tracegrade_eval.with_args(self)(function)
        return decorated

    def resolved(self, root: Path) -> EvalCases:
        """The spec with its relative paths made absolute against `root` (pytest's rootdir)."""
        return EvalCases(
            eval_sets=tuple(_under(root, spec) for spec in self.eval_sets),
            agent=_under(root, self.agent) if (root / self.agent).exists() else self.agent,
            config=_under(root, self.config) if self.config else None,
            repeats=self.repeats,
            parallel=self.parallel,
            metric_dirs=tuple(_under(root, d) for d in self.metric_dirs),
            judge=self.judge,
            turn_timeout_s=self.turn_timeout_s,
            ignore_unknown_keys=self.ignore_unknown_keys,
            allow_not_evaluated=self.allow_not_evaluated,
        )


@dataclass(frozen=True)
class CaseParam:
    """One generated test: a case of a spec's run, and the file that holds it."""

    spec: EvalCases
    eval_set_path: str
    eval_set_id: str
    case_id: str


def eval_cases(
    *eval_sets: str | os.PathLike[str],
    agent: str | os.PathLike[str],
    config: str | os.PathLike[str] | None = None,
    repeats: int | None = None,
    parallel: int | None = None,
    metric_dirs: tuple[str | os.PathLike[str], ...] = (),
    judge: JudgeSettings | Mapping[str, Any] | None = None,
    turn_timeout_s: float = 600.0,
    ignore_unknown_keys: bool = False,
    allow_not_evaluated: bool = False,
) -> EvalCases:
    """Eval cases for tests to check, one test per case.

    `eval_sets`: files or folders, as `tracegrade run` takes them (`file.json:case_a,case_b`
    selects cases). `agent`: an agent folder or `package.module:attr`. `config`: the criteria
    file; by default the test_config.json beside the one eval-set file named (ADK's rule),
    else ADK's default criteria. Relative paths are from pytest's rootdir. `repeats` and
    `parallel` default to 1; `--tracegrade-repeats` / `--tracegrade-parallel` override them.
    The rest are `tracegrade run`'s settings of the same names (`tracegrade.EvalRequest`):
    `judge` takes a `tracegrade.JudgeSettings` or a mapping of its fields (`concurrency`,
    `budget_usd`, `timeout_s`, `retries`: `--judge-concurrency`, `--judge-budget-usd`,
    `--judge-timeout`, `--judge-retries`), checked when the cases run.
    """
    if not eval_sets:
        raise TypeError("eval_cases() needs at least one eval set")
    return EvalCases(
        eval_sets=tuple(os.fspath(s) for s in eval_sets),
        agent=os.fspath(agent),
        config=os.fspath(config) if config is not None else None,
        repeats=repeats,
        parallel=parallel,
        metric_dirs=tuple(os.fspath(d) for d in metric_dirs),
        judge=_judge_items(judge),
        turn_timeout_s=turn_timeout_s,
        ignore_unknown_keys=ignore_unknown_keys,
        allow_not_evaluated=allow_not_evaluated,
    )


def _judge_items(judge: JudgeSettings | Mapping[str, Any] | None) -> tuple[tuple[str, Any], ...]:
    """The settings given, without importing pydantic models into every pytest run."""
    if judge is None:
        return ()
    given = judge if isinstance(judge, Mapping) else judge.model_dump(exclude_unset=True)
    return tuple(sorted(given.items()))


def _under(root: Path, spec: str) -> str:
    from tracegrade.evalset import parse_selection

    # A case selection (`file.json:a,b`) stays attached to the file it selects from.
    path, selection = parse_selection(spec)
    chosen = ":" + ",".join(sorted(selection)) if selection else ""
    return str(root / path) + chosen
