"""Reading criteria files: ADK's test_config.json unchanged, tracegrade's own section, and one
clear line naming the field for every mistake."""

from __future__ import annotations

from typing import Any

import pytest

from tracegrade.errors import ConfigError
from tracegrade.scoring.criteria import parse_config
from tracegrade.scoring.metrics import available_metrics

SPECS = available_metrics()
MATCH_TYPES = "EXACT, IN_ORDER, ANY_ORDER, SUBSET, SUPERSET, PRECISION, RECALL"
TRAJECTORY = "tool_trajectory_avg_score"


def _trajectory(**options: Any) -> dict[str, Any]:
    return {"criteria": {TRAJECTORY: {"threshold": 1, **options}}}


# Each mistake and the whole line a user reads for it.
MISTAKES: list[tuple[dict[str, Any], str]] = [
    ({"tracegrade": []}, "tracegrade: expected an object, got list"),
    ({"criteria": [1]}, "criteria: expected an object, got list"),
    ({"tracegrade": {"criteria": 3}}, "tracegrade.criteria: expected an object, got int"),
    (
        {"criteria": {"latency": 100}, "tracegrade": {"criteria": {"latency": 200}}},
        "criteria: 'latency' is set both in criteria and tracegrade.criteria",
    ),
    (
        {"criteria": {"tool_trajectory": 1.0}},
        "criteria: unknown metric 'tool_trajectory' (did you mean tool_trajectory_avg_score?)",
    ),
    (
        {"tracegrade": {"criteria": {"speed": {"max": 1}}}},
        "criteria: unknown metric 'speed' (none has a name like it: docs/metrics.md lists "
        "them; --metrics adds your own)",
    ),
    (
        {"criteria": {"response_match_score": "high"}},
        "criteria.response_match_score: expected a number or an object, got 'high'",
    ),
    (
        {"criteria": {"response_match_score": True}},
        "criteria.response_match_score: expected a number or an object, got True",
    ),
    (
        {"criteria": {"latency": {"p95": "fast"}}},
        "criteria.latency.p95: expected a number, got 'fast'",
    ),
    ({"criteria": {"latency": {"max": True}}}, "criteria.latency.max: expected a number, got True"),
    (
        {"criteria": {"latency": {"threshold": "0.5"}}},
        "criteria.latency.threshold: expected a number, got '0.5'",
    ),
    (
        {"criteria": {"response_match_score": {"treshold": 0.8}}},
        "criteria.response_match_score: unknown setting treshold (did you mean threshold?)",
    ),
    (
        {"criteria": {"response_match_score": {"threshold": 0.8, "matchType": "EXACT", "foo": 1}}},
        "criteria.response_match_score: unknown setting foo, match_type",
    ),
    (
        _trajectory(ignoreCase=True),
        f"criteria.{TRAJECTORY}: unknown setting ignore_case (did you mean ignore_args?)",
    ),
    (
        _trajectory(match_typ="IN_ORDER", argsMatsh="IGNORE"),
        f"criteria.{TRAJECTORY}: unknown setting args_matsh, match_typ "
        "(did you mean args_match for args_matsh, match_type for match_typ?)",
    ),
    (
        {"tracegrade": {"repeat_polic": "all"}},
        "tracegrade: unknown setting repeat_polic (did you mean repeat_policy?)",
    ),
    ({"tracegrade": {"budget": 1}}, "tracegrade: unknown setting budget"),
    (
        {"criteria": {}, "userSimulatorConfg": {"model": "m"}},
        "unknown key 'userSimulatorConfg' (did you mean user_simulator_config?)",
    ),
    ({"criteria": {"latency": {}}}, "criteria.latency: give a threshold (or max, p50, p95)"),
    (
        {"criteria": {"latency": {"judge_model_options": {"judge_model": "m"}}}},
        "criteria.latency: give a threshold (or max, p50, p95)",
    ),
    (
        _trajectory(match_type="SOMETIMES"),
        f"criteria.{TRAJECTORY}.match_type: 'SOMETIMES' is not one of {MATCH_TYPES}",
    ),
    (
        _trajectory(matchType="sometimes"),
        f"criteria.{TRAJECTORY}.match_type: 'sometimes' is not one of {MATCH_TYPES}",
    ),
    (
        _trajectory(args_match="sometimes"),
        f"criteria.{TRAJECTORY}: argument match 'SOMETIMES' is not one of EXACT, SUBSET, IGNORE",
    ),
    (
        _trajectory(argsMatchPerTool={"search": "fuzzy"}),
        f"criteria.{TRAJECTORY}: argument match 'fuzzy' is not one of EXACT, SUBSET, IGNORE",
    ),
    (
        {"tracegrade": {"repeat_policy": "most"}},
        "tracegrade.repeat_policy: 'most' must be 'all', 'majority' "
        'or {"at_least": k} with k >= 1',
    ),
    (
        {"tracegrade": {"repeat_policy": {"at_least": 0}}},
        "tracegrade.repeat_policy: {'at_least': 0} must be 'all', 'majority' "
        'or {"at_least": k} with k >= 1',
    ),
    (
        {"tracegrade": {"repeat_policy": {"at_least": 2, "of": 3}}},
        "tracegrade.repeat_policy: {'at_least': 2, 'of': 3} must be 'all', 'majority' "
        'or {"at_least": k} with k >= 1',
    ),
    (
        {"tracegrade": {"max_error_rate": 2}},
        "tracegrade.max_error_rate: 2 must be a number from 0 to 1",
    ),
    (
        {"tracegrade": {"max_error_rate": "0.1"}},
        "tracegrade.max_error_rate: '0.1' must be a number from 0 to 1",
    ),
    (
        {"tracegrade": {"max_error_rate": False}},
        "tracegrade.max_error_rate: False must be a number from 0 to 1",
    ),
    ({"tracegrade": {"prices": []}}, "tracegrade.prices: expected an object, got list"),
    (
        {"tracegrade": {"prices": {"m": {"input": 1}}}},
        "tracegrade.prices.m: needs 'input' and 'output' (USD per 1M tokens)",
    ),
    (
        {"tracegrade": {"prices": {"m": 3}}},
        "tracegrade.prices.m: needs 'input' and 'output' (USD per 1M tokens)",
    ),
    (
        {"tracegrade": {"prices": {"m": {"input": "x", "output": 1}}}},
        "tracegrade.prices.m.input: expected a number, got 'x'",
    ),
]


@pytest.mark.parametrize(("config", "message"), MISTAKES)
def test_each_mistake_is_one_line_naming_the_field(config: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(config, SPECS)
    assert str(caught.value) == message


def test_adk_config_works_unchanged() -> None:
    adk = {
        "criteria": {
            "tool_trajectory_avg_score": {
                "threshold": 1.0,
                "matchType": "any order",
                "ignoreArgs": True,
            },
            "response_match_score": 0.8,
            "final_response_match_v2": {
                "threshold": 0.5,
                "judge_model_options": {"judge_model": "gemini-2.5-flash"},
            },
        }
    }
    config = parse_config(adk, SPECS)
    trajectory = config.criteria["tool_trajectory_avg_score"]
    assert (
        trajectory.threshold,
        trajectory.options["match_type"],
        trajectory.options["args_match"],
    ) == (1.0, "ANY_ORDER", "IGNORE")
    assert config.criteria["response_match_score"].threshold == 0.8
    judged = config.criteria["final_response_match_v2"]
    assert (judged.threshold, judged.options["judge"]) == (
        0.5,
        adk["criteria"]["final_response_match_v2"],
    )
    assert parse_config(None, SPECS).criteria.keys() == {
        "tool_trajectory_avg_score",
        "response_match_score",
    }


def test_top_level_keys_adk_ignores_are_ignored_unless_they_look_like_a_known_one() -> None:
    document = {"criteria": {"latency": {"max": 5}}, "description": "nightly", "$schema": "x"}
    assert list(parse_config(document, SPECS).criteria) == ["latency"]
    with pytest.raises(ConfigError, match=r"unknown key 'critera' \(did you mean criteria\?\)"):
        parse_config({"critera": {"latency": {"max": 5}}}, SPECS)


def test_efficiency_metrics_accept_adk_names_as_budgets() -> None:
    config = parse_config(
        {"criteria": {"token_usage_v1": 3000, "invocation_duration_v1": {"p95": 2.5}}}, SPECS
    )
    assert config.criteria["token_usage"].max == 3000
    assert config.criteria["invocation_duration"].p95 == 2.5


def test_a_whole_file_reads_into_the_config_scoring_records() -> None:
    # What `scorings.config` stores and the reports read back: its shape must not drift.
    config = parse_config(
        {
            "criteria": {
                TRAJECTORY: {
                    "threshold": 1,
                    "match_type": "in-order",
                    "argsMatch": "subset",
                    "args_match_per_tool": {"search": "ignore"},
                    "unorderedParallelCalls": True,
                    "include_intermediate_responses_in_final": True,
                },
                "response_match_score": 0.7,
                "hallucinations_v1": {"threshold": 0.9},
                "per_turn_user_simulator_quality_v1": 0.5,
            },
            "tracegrade": {
                "criteria": {"token_usage": {"max": 4000, "p95": 3000}, "latency": 8000},
                "repeat_policy": {"at_least": 2},
                "max_error_rate": 0.25,
                "prices": {"my-model": {"input": 0.3, "cached_input": 0.03, "output": 2.5}},
            },
        },
        SPECS,
    )
    gates = {"threshold": None, "max": None, "p50": None, "p95": None}
    assert config.model_dump() == {
        "criteria": {
            TRAJECTORY: {
                "metric": TRAJECTORY,
                **gates,
                "threshold": 1.0,
                "options": {
                    "match_type": "IN_ORDER",
                    "args_match": "SUBSET",
                    "args_match_per_tool": {"search": "IGNORE"},
                    "unordered_parallel_calls": True,
                },
                "better": "higher",
            },
            "response_match_score": {
                "metric": "response_match_score",
                **gates,
                "threshold": 0.7,
                "options": {},
                "better": "higher",
            },
            "token_usage": {
                "metric": "token_usage",
                **gates,
                "max": 4000.0,
                "p95": 3000.0,
                "options": {},
                "better": "lower",
            },
            "latency": {
                "metric": "latency",
                **gates,
                "max": 8000.0,
                "options": {},
                "better": "lower",
            },
            "hallucinations_v1": {
                "metric": "hallucinations_v1",
                **gates,
                "threshold": 0.9,
                "options": {"judge": {"threshold": 0.9}},
                "better": "higher",
            },
            "per_turn_user_simulator_quality_v1": {
                "metric": "per_turn_user_simulator_quality_v1",
                **gates,
                "threshold": 0.5,
                "options": {"judge": 0.5},
                "better": "higher",
            },
        },
        "not_evaluated": {},
        "repeat_policy": {"kind": "at_least", "k": 2},
        "max_error_rate": 0.25,
        "prices": {"my-model": {"input": 0.3, "cached_input": 0.03, "output": 2.5}},
        "allow_not_evaluated": False,
        "judge_imports": (),
    }


@pytest.mark.parametrize(
    ("given", "match_type", "args_match", "per_tool"),
    [
        ({}, "EXACT", "EXACT", {}),
        ({"ignore_args": True}, "EXACT", "IGNORE", {}),
        ({"ignoreArgs": True, "args_match": "exact"}, "EXACT", "EXACT", {}),
        ({"match_type": " any order "}, "ANY_ORDER", "EXACT", {}),
        ({"matchType": "superset", "argsMatchPerTool": {"a": "Subset"}}, "SUPERSET", "EXACT",
         {"a": "SUBSET"}),
    ],
)  # fmt: skip
def test_trajectory_options_read_as_adk_spells_them(
    given: dict[str, Any], match_type: str, args_match: str, per_tool: dict[str, str]
) -> None:
    options = parse_config(_trajectory(**given), SPECS).criteria[TRAJECTORY].options
    assert (options["match_type"], options["args_match"]) == (match_type, args_match)
    assert options["args_match_per_tool"] == per_tool
    assert options["unordered_parallel_calls"] is False


def test_a_bare_number_is_a_threshold_or_a_budget_by_the_metrics_direction() -> None:
    config = parse_config({"criteria": {"response_match_score": 1, "token_usage": 10}}, SPECS)
    assert config.criteria["response_match_score"].threshold == 1.0
    assert config.criteria["token_usage"].max == 10.0
    assert config.repeat_policy.kind == "all"
    assert config.max_error_rate == 0.0
