"""`test_config.json`: criteria kept raw, found beside the eval set like `adk eval` does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from google.adk.evaluation.eval_config import _DEFAULT_EVAL_CONFIG
from google.adk.evaluation.eval_config import EvalConfig as AdkEvalConfig

from tests.evalset.evalset_adk_reference import INVALID_DIR, VALID_DIR
from tracegrade.errors import EvalSetError
from tracegrade.evalset import DEFAULT_CRITERIA, find_config, load_config

HOME_DIR = VALID_DIR / "home_automation"
CONFIG = HOME_DIR / "test_config.json"


def test_criteria_are_kept_as_written() -> None:
    raw = json.loads(CONFIG.read_text(encoding="utf-8"))

    config = load_config(CONFIG)

    assert config.criteria == raw["criteria"]
    trajectory = config.criteria["tool_trajectory_avg_score"]
    assert isinstance(trajectory, dict)
    assert trajectory["matchType"] == "IN_ORDER"
    assert isinstance(config.criteria["response_match_score"], float)


def test_thresholds_agree_with_adk() -> None:
    ours = load_config(CONFIG)
    adk = AdkEvalConfig.model_validate_json(CONFIG.read_bytes())

    def threshold(value: object) -> object:
        return value["threshold"] if isinstance(value, dict) else value

    adk_thresholds = {k: getattr(v, "threshold", v) for k, v in adk.criteria.items()}
    assert {k: threshold(v) for k, v in ours.criteria.items()} == adk_thresholds


def test_custom_metrics_and_simulator_config_load_in_either_case() -> None:
    config = load_config(CONFIG)

    assert config.custom_metrics is not None
    assert config.custom_metrics["device_safety"].code_config.name == "home_metrics.device_safety"
    assert config.user_simulator_config == {
        "model": "gemini-2.5-flash",
        "max_allowed_invocations": 6,
    }


def test_default_criteria_are_adks() -> None:
    assert dict(DEFAULT_CRITERIA) == _DEFAULT_EVAL_CONFIG.criteria


def test_find_config_returns_the_file_beside_the_eval_set() -> None:
    assert find_config(HOME_DIR / "home.evalset.json") == CONFIG
    assert find_config(VALID_DIR / "hello_world" / "dice.evalset.json") is None


def test_a_criterion_without_threshold_is_named() -> None:
    path = INVALID_DIR / "criterion_without_threshold.json"

    with pytest.raises(EvalSetError) as caught:
        load_config(path)

    assert str(caught.value) == (
        f"test config '{path}': criteria: "
        "criterion 'tool_trajectory_avg_score' needs a numeric threshold"
    )


@pytest.mark.parametrize("bad", ['"high"', "true", "[0.5]"])
def test_a_criterion_must_be_a_number_or_an_object(tmp_path: Path, bad: str) -> None:
    path = tmp_path / "test_config.json"
    path.write_text(f'{{"criteria": {{"response_match_score": {bad}}}}}', encoding="utf-8")

    with pytest.raises(EvalSetError) as caught:
        load_config(path)

    assert str(caught.value) == (
        f"test config '{path}': criteria: "
        "criterion 'response_match_score' must be a number or an object"
    )


def test_a_custom_metric_without_code_config_is_named(tmp_path: Path) -> None:
    path = tmp_path / "test_config.json"
    path.write_text('{"customMetrics": {"m": {"description": "x"}}}', encoding="utf-8")

    with pytest.raises(EvalSetError) as caught:
        load_config(path)

    assert str(caught.value) == (
        f"test config '{path}': custom_metrics.m.code_config: field required"
    )


def test_a_missing_config_says_so(tmp_path: Path) -> None:
    with pytest.raises(EvalSetError) as caught:
        load_config(tmp_path / "test_config.json")

    assert str(caught.value) == f"test config '{tmp_path / 'test_config.json'}': file not found"
