"""Recorded traffic into an ADK eval set: new golden cases from real turns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from google.adk.evaluation.eval_set import EvalSet
from google.adk.evaluation.local_eval_sets_manager import load_eval_set_from_file

from tests.scoring.test_no_args_parity import AGENT
from tests.support.adk_oracle import TRAJECTORY, adk_replay, adk_scores
from tests.support.adk_run import adk_settings, run_scenario
from tests.support.paths import DATA
from tests.support.scenarios import Scenario
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.errors import EvalSetError
from tracegrade.evalset import ExpectedCall, load_eval_set, write_eval_set
from tracegrade.evalset.from_traffic import cases_from_traffic
from tracegrade.ingest import ingest_file
from tracegrade.store import LocalReader, SpanWriter

pytestmark = costly  # every test here: see tests.support.tiers.costly

TRACES = DATA / "traces"


@pytest.fixture
def reader(writer: SpanWriter) -> LocalReader:
    for name in ("adk_v2_a", "adk_v2_b", "adk_v2_c"):
        ingest_file(TRACES / f"{name}.otlp.jsonl", writer)
    return LocalReader(writer.connection)


def test_a_matching_turn_brings_its_session_up_to_it(reader: LocalReader) -> None:
    exported = cases_from_traffic(reader, "user_text = 'And in Tokyo?'", "golden")
    (case,) = exported.cases
    expected = json.loads((TRACES / "adk_v2_b.expected.json").read_text())["turns"]
    assert case.case_id == "traffic_session-adk-v2-b"
    assert [t.user_text for t in case.turns] == [t["user_text"] for t in expected]
    assert [t.final_text for t in case.turns] == [t["final_response"] for t in expected]
    assert [list(t.tool_calls) for t in case.turns] == [
        [ExpectedCall(c["name"], c["args"]) for c in t["tool_trajectory"]] for t in expected
    ]


def test_written_cases_load_in_adk_and_back_in_tracegrade(
    reader: LocalReader, tmp_path: Path
) -> None:
    exported = cases_from_traffic(reader, "tool_calls > 0", "golden")
    path = write_eval_set(tmp_path / "golden.evalset.json", "golden", exported.cases)
    adk = EvalSet.model_validate(json.loads(path.read_text()))
    assert len(adk.eval_cases) == len(exported.cases) == 3
    assert load_eval_set(path).cases == tuple(exported.cases)


def test_crashed_turns_are_kept_with_a_warning(reader: LocalReader) -> None:
    exported = cases_from_traffic(reader, "is_error", "golden")
    assert len(exported.cases) == 1
    assert any("crashed" in w for w in exported.warnings)


def test_nothing_matching_is_a_clear_error(reader: LocalReader) -> None:
    with pytest.raises(
        EvalSetError, match="no recorded turns match: user_text = 'nobody said this'"
    ):
        cases_from_traffic(reader, "user_text = 'nobody said this'", "golden")


def test_a_call_sent_without_arguments_is_expected_without_them(
    writer: SpanWriter, captured: BlockingSpanProcessor, tmp_path: Path
) -> None:
    """The eval set written from traffic scores 1.0 in ADK against the same agent: a call
    the model sent without arguments (its span says {}) is written without `args`."""
    with adk_settings("2", content=True):
        run_scenario(Scenario("no_args", lambda: AGENT, ("without args", "with empty args")))
    assert captured.force_flush()
    exported = cases_from_traffic(LocalReader(writer.connection), "tool_calls > 0", "golden")
    (case,) = exported.cases
    assert [list(t.tool_calls) for t in case.turns] == [
        [ExpectedCall("lookup", None), ExpectedCall("find", {"city": "Paris"})],
        [ExpectedCall("lookup", {})],
    ]
    path = write_eval_set(tmp_path / "golden.evalset.json", "golden", exported.cases)
    (adk_case,) = load_eval_set_from_file(str(path), "golden").eval_cases
    adk = adk_scores(TRAJECTORY, {}, adk_replay(AGENT, adk_case), adk_case.conversation or [])
    assert (adk.turns, adk.case) == ([1.0, 1.0], 1.0)
