"""Online scoring rules (`serve --rules`): every mistake is one line naming the file, the
rule and the field; a rule's version changes with what decides its scores, and only that."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tracegrade.errors import ConfigError
from tracegrade.scoring.metrics import MetricSpec, available_metrics
from tracegrade.scoring.rules import DEFAULT_QUIET_S, load_rules

SPECS: dict[str, MetricSpec] = available_metrics()
BUDGETS = {"name": "budgets", "criteria": {"tool_error_rate": {"max": 0.2}}}
JUDGE = {"judge_model": "rules_judge:JUDGE", "num_samples": 1}
JUDGE_MODULE = """
from tracegrade.testing import ScriptedJudge, judge_answers

JUDGE = ScriptedJudge(model="unpriced-judge", answer=lambda p, sample: judge_answers.auto(p))
"""


def _file(tmp_path: Path, document: Any) -> Path:
    path = tmp_path / "rules.json"
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return path


def _refusal(tmp_path: Path, document: Any) -> str:
    path = _file(tmp_path, document)
    with pytest.raises(ConfigError) as raised:
        load_rules(path, SPECS)
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(f"rules file '{path}'")
    return message[len(f"rules file '{path}'") :]


def test_a_valid_file_gives_its_rules_with_their_settings(tmp_path: Path) -> None:
    rule = {**BUDGETS, "where": "agent_name = 'shop'", "sample": 0.25, "backfill": True}
    loaded = load_rules(_file(tmp_path, {"rules": [rule]}), SPECS)

    assert loaded.quiet_s == DEFAULT_QUIET_S
    (only,) = loaded.rules
    assert (only.name, only.where, only.sample, only.backfill) == (
        "budgets",
        "agent_name = 'shop'",
        0.25,
        True,
    )
    assert list(only.config.criteria) == ["tool_error_rate"]
    assert only.config.criteria["tool_error_rate"].max == 0.2
    assert not only.judged
    assert len(only.version) == 16


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ({"criteria": {}}, " rule #1: name is required"),
        ({"name": "x"}, " rule 'x': criteria is required"),
        (
            {**BUDGETS, "smaple": 0.1},
            " rule 'budgets': unknown field 'smaple': the fields are name, where",
        ),
        (
            {**BUDGETS, "sample": 1.5},
            " rule 'budgets': sample: Input should be less than or equal to 1",
        ),
        ({**BUDGETS, "name": "a b"}, " rule 'a b': name 'a b': use up to 64 letters, digits"),
        (
            {**BUDGETS, "where": "1; DROP TABLE spans"},
            " rule 'budgets': where '1; DROP TABLE spans': not one SQL condition",
        ),
        (
            {**BUDGETS, "where": "turn_id IN (SELECT * FROM read_csv('/etc/passwd'))"},
            " rule 'budgets': where ",
        ),
        (
            {"name": "r", "criteria": {"tool_eror_rate": 0.1}},
            " rule 'r': criteria: unknown metric 'tool_eror_rate' (did you mean tool_error_rate?)",
        ),
        (
            {"name": "r", "criteria": {"latency": {"p95": "fast"}}},
            " rule 'r': criteria.latency.p95",
        ),
        (
            {"name": "r", "criteria": {"tool_trajectory_avg_score": 1.0}},
            " rule 'r': criteria.tool_trajectory_avg_score needs expected turns",
        ),
        (
            {**BUDGETS, "judge_budget": {"calls_per_day": -1}},
            " rule 'budgets': judge_budget.calls_per_day: Input should be greater than or equal",
        ),
        (
            {**BUDGETS, "judge_budget": {"usd": 1}},
            " rule 'budgets': unknown field 'judge_budget.usd'",
        ),
    ],
)
def test_a_bad_rule_is_one_line_naming_the_rule_and_field(
    tmp_path: Path, rule: dict[str, Any], expected: str
) -> None:
    assert _refusal(tmp_path, {"rules": [rule]}).startswith(expected)


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        ("{", ": "),
        ([], ': expected a JSON object {"rules": [...]}'),
        ({}, ": rules is required"),
        ({"rules": []}, ': no rules: add one to "rules", or serve without --rules'),
        ({"rules": [BUDGETS, BUDGETS]}, ": two rules are named 'budgets': give each its own name"),
        (
            {"rules": [BUDGETS], "quiet_s": -1},
            ": quiet_s: Input should be greater than or equal to 0",
        ),
        ({"rules": [BUDGETS], "quiet": 1}, ": unknown field 'quiet'"),
    ],
)
def test_a_bad_file_is_one_line(tmp_path: Path, document: Any, expected: str) -> None:
    assert _refusal(tmp_path, document).startswith(expected)


def test_a_usd_budget_needs_a_priced_judge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "rules_judge.py").write_text(JUDGE_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    criteria = {"task_completion": {"threshold": 0.5, "judge_model_options": JUDGE}}
    rule = {"name": "q", "criteria": criteria, "judge_budget": {"usd_per_day": 1}}
    message = _refusal(tmp_path, {"rules": [rule]})
    assert message.startswith(" rule 'q': judge_budget.usd_per_day: the judge")
    assert message.endswith(
        "to the rule's prices (USD per 1M tokens), or budget calls_per_day only"
    )

    priced = {**rule, "prices": {"unpriced-judge": {"input": 0.3, "output": 2.5}}}
    assert load_rules(_file(tmp_path, {"rules": [priced]}), SPECS).rules[0].budget.usd_per_day == 1
    calls_only = {**rule, "judge_budget": {"calls_per_day": 10}}
    (loaded,) = load_rules(_file(tmp_path, {"rules": [calls_only]}), SPECS).rules
    assert loaded.judged
    assert loaded.budget.calls_per_day == 10


def test_an_unknown_judge_is_refused_at_start(tmp_path: Path) -> None:
    options = {"judge_model": "no_such_module:JUDGE"}
    rule = {
        "name": "q",
        "criteria": {"task_completion": {"threshold": 0.5, "judge_model_options": options}},
    }
    assert _refusal(tmp_path, {"rules": [rule]}).startswith(" rule 'q': ")


def test_the_version_follows_what_decides_the_scores(tmp_path: Path) -> None:
    def version(**changes: Any) -> str:
        (rule,) = load_rules(_file(tmp_path, {"rules": [{**BUDGETS, **changes}]}), SPECS).rules
        return rule.version

    base = version()
    assert version() == base
    assert version(judge_budget={"calls_per_day": 5}, backfill=True) == base
    changed = {
        version(sample=0.5),
        version(where="agent_name = 'a'"),
        version(criteria={"tool_error_rate": {"max": 0.3}}),
        version(prices={"m": {"input": 1, "output": 2}}),
    }
    assert base not in changed
    assert len(changed) == 4


def test_backfill_from_the_command_line_applies_to_every_rule(tmp_path: Path) -> None:
    path = _file(tmp_path, {"rules": [BUDGETS, {**BUDGETS, "name": "other"}]})
    assert all(rule.backfill for rule in load_rules(path, SPECS, backfill=True).rules)
    assert not any(rule.backfill for rule in load_rules(path, SPECS).rules)


def test_serve_refuses_a_bad_rules_file_before_it_opens_the_database(tmp_path: Path) -> None:
    from tests.support.cli import invoke, one_line_error

    rules = _file(tmp_path, {"rules": [{**BUDGETS, "where": "1; DROP TABLE spans"}]})
    db = tmp_path / "serve.duckdb"
    result = invoke("serve", "--db", str(db), "--rules", str(rules), "--port", "0")

    assert result.exit_code == 2
    line = one_line_error(result.stderr)
    assert line.startswith(f"tracegrade: rules file '{rules}' rule 'budgets': where ")
    assert not db.exists()


def test_what_is_left_of_a_daily_budget(tmp_path: Path) -> None:
    from tracegrade.scoring.online import DaySpend

    budget = {"usd_per_day": 2.0, "calls_per_day": 10}
    (rule,) = load_rules(
        _file(tmp_path, {"rules": [{**BUDGETS, "judge_budget": budget}]}), SPECS
    ).rules
    assert DaySpend(calls=4, usd=0.5).left(rule) == (1.5, 6)
    assert DaySpend(calls=12, usd=3.0).left(rule) == (0.0, 0)
    (unlimited,) = load_rules(_file(tmp_path, {"rules": [BUDGETS]}), SPECS).rules
    assert DaySpend(calls=12, usd=3.0).left(unlimited) == (None, None)
