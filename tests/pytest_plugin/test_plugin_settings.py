"""The plugin sets what `tracegrade run` sets: both build one `EvalRequest`, so a judge
setting the CLI gains reaches `eval_cases(...)` with it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from tracegrade.cli.main import app
from tracegrade.pytest_plugin import eval_cases
from tracegrade.pytest_plugin.session import EvalSession
from tracegrade.workspace import evaluation
from tracegrade.workspace.requests import EvalRequest, JudgeSettings, load_criteria

EVALSET = Path(__file__).resolve().parents[2] / "examples" / "home_automation"


class _Stop(Exception):
    """Raised in place of the run: the request is all this test needs."""


def _cli_request(monkeypatch: pytest.MonkeyPatch, *options: str) -> EvalRequest:
    """The request `tracegrade run` builds from its options (nothing runs)."""
    asked: list[EvalRequest] = []

    def prepare(request: EvalRequest, store: Any) -> Any:
        asked.append(request)
        raise _Stop

    monkeypatch.setattr(evaluation, "prepare_eval", prepare)
    result = CliRunner().invoke(app, ["run", str(EVALSET), "--agent", "nowhere:agent", *options])
    assert isinstance(result.exception, _Stop), result.output
    return asked[0]


def _cli_judge_options() -> list[str]:
    command = typer.main.get_command(app).commands["run"]  # type: ignore[attr-defined]
    return sorted(o for p in command.params for o in p.opts if o.startswith("--judge-"))


def test_every_judge_setting_of_run_is_one_the_plugin_sets(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    options = _cli_judge_options()
    assert options == [
        "--judge-budget-usd", "--judge-concurrency", "--judge-retries", "--judge-timeout",
    ]  # fmt: skip
    # A value each, unlike every default: the request shows which setting each one sets.
    values = {"--judge-budget-usd": "0.25", "--judge-concurrency": "3",
              "--judge-retries": "2", "--judge-timeout": "7.5"}  # fmt: skip
    cli = _cli_request(monkeypatch, *[part for o in options for part in (o, values[o])])
    set_by_cli = cli.judge.model_dump(exclude_unset=True)
    assert len(set_by_cli) == len(options)  # each option is a setting of its own
    assert set_by_cli == {"budget_usd": 0.25, "concurrency": 3, "retries": 2, "timeout_s": 7.5}

    spec = eval_cases(str(EVALSET), agent="nowhere:agent", judge=set_by_cli)
    session = EvalSession(tmp_path / "p.duckdb", repeats=None, parallel=None, selected={})
    try:
        request = session._request(spec, load_criteria(None))
    finally:
        session.close()
    assert request.judge == cli.judge
    # A `JudgeSettings` is taken as well as its fields; every field, not only the CLI's.
    every = JudgeSettings(
        concurrency=5, timeout_s=1.0, retries=0, backoff_s=0.5, budget_usd=1.0, max_calls=10
    )
    spec = eval_cases(str(EVALSET), agent="nowhere:agent", judge=every)
    assert dict(spec.judge) == every.model_dump()


def test_the_run_settings_of_run_reach_the_plugins_request(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    cli = _cli_request(
        monkeypatch, "--turn-timeout", "9", "--allow-not-evaluated", "--ignore-unknown-keys"
    )
    spec = eval_cases(
        str(EVALSET),
        agent="nowhere:agent",
        turn_timeout_s=9,
        allow_not_evaluated=True,
        ignore_unknown_keys=True,
    )
    session = EvalSession(tmp_path / "p.duckdb", repeats=None, parallel=None, selected={})
    try:
        plugin = session._request(spec, load_criteria(None))
    finally:
        session.close()
    compared = ("turn_timeout_s", "allow_not_evaluated", "ignore_unknown_keys", "judge", "repeats")
    assert {k: getattr(plugin, k) for k in compared} == {k: getattr(cli, k) for k in compared}
