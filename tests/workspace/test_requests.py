"""The typed requests: what a front end builds is what crosses to the server and back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tracegrade.errors import ConfigError
from tracegrade.evalset import load_eval_set
from tracegrade.scoring.metrics import available_metrics
from tracegrade.workspace.requests import JudgeSettings, ScoreRequest, load_criteria

CONFIG = Path(__file__).resolve().parents[2] / "examples" / "home_automation" / "test_config.json"


def test_a_score_request_sent_to_a_server_is_read_back_the_same() -> None:
    criteria = load_criteria(CONFIG)
    sent = ScoreRequest(
        run_id="r1", criteria=criteria, judge=JudgeSettings(retries=2, budget_usd=0.5)
    )
    body = sent.to_wire()
    assert body["judge"] == {"retries": 2, "budget_usd": 0.5}  # only what was set
    received = ScoreRequest.from_wire(body, available_metrics())
    assert received.run_id == "r1"
    assert received.judge == sent.judge
    assert received.criteria is not None
    # Parsed once on each side of the wire, to the same criteria.
    assert received.criteria.config == criteria.config
    assert received.criteria.raw == criteria.raw


def test_traffic_round_trips_and_defaults_send_nothing() -> None:
    sent = ScoreRequest(since_s=3600, sample=0.25, where="latency_ms > 10")
    body = sent.to_wire()
    assert body == {"run_id": None, "config": None, "judge": None, "since_s": 3600,
                    "sample": 0.25, "where": "latency_ms > 10"}  # fmt: skip
    assert ScoreRequest.from_wire(body, available_metrics()) == sent


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"run_id": "r", "sample": 0.5}, "give a run_id or traffic options"),
        ({"since_s": -1}, "since_s -1: must be 0 or more seconds"),
        ({"sample": 2}, "sample 2: must be a share between 0 and 1"),
    ],
)
def test_a_request_that_cannot_be_scored_is_refused_as_it_is_built(
    fields: dict[str, object], message: str
) -> None:
    # A ConfigError (one line from every front end), not pydantic's ValidationError.
    with pytest.raises(ConfigError, match=message):
        ScoreRequest.model_validate(fields)
    with pytest.raises(ConfigError, match=message):
        ScoreRequest.from_wire(fields, available_metrics())


def test_a_body_with_a_wrong_field_names_it() -> None:
    with pytest.raises(ConfigError, match="unknown field 'run'"):
        ScoreRequest.from_wire({"run": "x"}, available_metrics())
    with pytest.raises(ConfigError, match="judge settings: concurrency"):
        ScoreRequest.from_wire({"judge": {"concurrency": 0}}, available_metrics())
    with pytest.raises(ConfigError, match="the criteria given: "):
        ScoreRequest.from_wire({"config": {"criteria": {"nope": 1}}}, available_metrics())


EVALSET = CONFIG.with_name("home.evalset.json")


def test_an_evalset_file_travels_as_its_cases_and_the_criteria_beside_it() -> None:
    """The file is read where the request is made: the wire carries its cases and the
    test_config.json beside it, not a path the server may not see."""
    sent = ScoreRequest(evalset=EVALSET)
    assert sent.evalset is not None
    assert sent.criteria is not None
    assert sent.evalset.cases == load_eval_set(EVALSET).cases
    assert sent.criteria.raw == load_criteria(CONFIG).raw  # beside the eval set
    body = json.loads(json.dumps(sent.to_wire()))  # as it crosses: JSON, no Python objects
    assert body["evalset"]["source"] == str(EVALSET)
    received = ScoreRequest.from_wire(body, available_metrics())
    assert received.evalset == sent.evalset
    assert received.criteria is not None
    assert received.criteria.config == sent.criteria.config


@pytest.mark.parametrize(
    ("evalset", "message"),
    [
        ("home.evalset.json", "evalset 'home.evalset.json': must be an object"),
        ({"source": "x", "cases": [{"case_id": "c"}]}, r"evalset\.cases\[0\]\.eval_set_id: "),
        ({"source": "x", "cases": [], "extra": 1}, r"evalset\.extra: extra inputs"),
    ],
)
def test_a_malformed_evalset_in_a_body_names_the_field(evalset: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        ScoreRequest.from_wire({"evalset": evalset}, available_metrics())
