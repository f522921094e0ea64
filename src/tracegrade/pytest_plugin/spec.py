"""What a test file asks for: which eval sets, which agent, which criteria.

Kept free of heavy imports: pytest imports the plugin in every run, used or not.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import pytest

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
) -> EvalCases:
    """Eval cases for tests to check, one test per case.

    `eval_sets`: files or folders, as `tracegrade run` takes them (`file.json:case_a,case_b`
    selects cases). `agent`: an agent folder or `package.module:attr`. `config`: the criteria
    file; by default the test_config.json beside the one eval-set file named (ADK's rule),
    else ADK's default criteria. Relative paths are from pytest's rootdir. `repeats` and
    `parallel` default to 1; `--tracegrade-repeats` / `--tracegrade-parallel` override them.
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
    )


def _under(root: Path, spec: str) -> str:
    from tracegrade.evalset import parse_selection

    # A case selection (`file.json:a,b`) stays attached to the file it selects from.
    path, selection = parse_selection(spec)
    chosen = ":" + ",".join(sorted(selection)) if selection else ""
    return str(root / path) + chosen
