"""Tool calls without arguments score as ADK scores them, through a real agent run.

Gemini calls a tool without parameters with no `args` at all; ADK's evaluator compares that
None with the expected call's args (Python `==`), so `{"name": "lookup"}` matches and
`{"name": "lookup", "args": {}}` does not. The execute_tool span records the call's
arguments as `{}` either way (ADK runs the tool with `args or {}`), but the model call's
response says which the model sent (schema v2 `"arguments": null`, v1 a `function_call`
without `args`): with it tracegrade scores every case exactly as ADK does, in both schemas.

Where that response was not captured (here: a Collector deleting `gen_ai.output.messages`)
the span's `{}` is all there is: tracegrade reads it as `{}`, and differs from ADK only
where the model sent none (docs/metrics.md, "Calls without arguments").
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from google.adk.agents import LlmAgent
from google.adk.evaluation.local_eval_sets_manager import load_eval_set_from_file
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from tests.support.adk_oracle import TRAJECTORY, AdkScores, adk_replay, adk_scores
from tests.support.adk_run import ROUTER, adk_settings
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor, DuckDBSpanExporter
from tracegrade.harness import RunOptions, plan_run
from tracegrade.harness.run import execute
from tracegrade.scoring import Selection, available_metrics, parse_config, score
from tracegrade.store import SpanWriter
from tracegrade.testing import ScriptedLlm


def lookup() -> dict[str, Any]:
    """Look everything up."""
    return {"found": True}


def find(city: str) -> dict[str, Any]:
    """Find a city."""
    return {"city": city}


SCRIPT: dict[str, list[dict[str, Any]]] = {
    "without args": [
        {"tool_calls": [{"name": "lookup", "args": None}]},
        {"tool_calls": [{"name": "find", "args": {"city": "Paris"}}]},
        {"text": "Found."},
    ],
    "with empty args": [{"tool_calls": [{"name": "lookup", "args": {}}]}, {"text": "Found."}],
}
AGENT = LlmAgent(name="finder", model=ScriptedLlm.by_user_text(SCRIPT), tools=[lookup, find])

FIND = {"name": "find", "args": {"city": "Paris"}}
CASES: dict[str, list[tuple[str, list[dict[str, Any]]]]] = {
    "no_args_both": [("without args", [{"name": "lookup"}, FIND])],
    "empty_args_both": [("with empty args", [{"name": "lookup", "args": {}}])],
    "two_turns": [
        ("without args", [{"name": "lookup"}, FIND]),
        ("with empty args", [{"name": "lookup", "args": {}}]),
    ],
    "expected_empty": [("without args", [{"name": "lookup", "args": {}}, FIND])],
    "model_sent_empty": [("with empty args", [{"name": "lookup"}])],
}
MATCH_TYPES = ["EXACT", "IN_ORDER", "ANY_ORDER"]
RESPONSES = ("gen_ai.output.messages", "gcp.vertex.agent.llm_response")
"""Where a model call's response is recorded (schema v2, v1)."""


def _eval_set(folder: Path) -> Path:
    cases = [
        {
            "eval_id": case_id,
            "conversation": [
                {
                    "user_content": {"parts": [{"text": text}]},
                    "intermediate_data": {"tool_uses": calls},
                }
                for text, calls in turns
            ],
        }
        for case_id, turns in CASES.items()
    ]
    path = folder / "no_args.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "no_args", "eval_cases": cases}))
    return path


@pytest.fixture(scope="module")
def eval_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _eval_set(tmp_path_factory.mktemp("no_args"))


class WithoutResponses(SpanExporter):
    """Deletes the model calls' responses before storing, as a Collector's attributes
    processor (`action: delete`) would: tool arguments kept, responses not captured."""

    def __init__(self, inner: SpanExporter) -> None:
        self.inner = inner

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return self.inner.export([_without_responses(s) for s in spans])

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return self.inner.force_flush(timeout_millis)

    def shutdown(self) -> None:
        self.inner.shutdown()


def _without_responses(span: ReadableSpan) -> ReadableSpan:
    attributes = {k: v for k, v in (span.attributes or {}).items() if k not in RESPONSES}
    return ReadableSpan(
        name=span.name,
        context=span.context,
        parent=span.parent,
        resource=span.resource,
        attributes=attributes,
        events=span.events,
        links=span.links,
        kind=span.kind,
        status=span.status,
        start_time=span.start_time,
        end_time=span.end_time,
        instrumentation_scope=span.instrumentation_scope,
    )


Scores = dict[tuple[str, int | None], float]
"""(case, turn index) to the trajectory score; turn None: the case's."""


def _run(eval_set: Path, writer: SpanWriter, schema: str, responses: bool) -> str:
    """One eval run of AGENT into `writer`, its spans stored whole or without responses."""
    exporter = DuckDBSpanExporter(writer=writer)
    processor = BlockingSpanProcessor(exporter if responses else WithoutResponses(exporter))
    ROUTER.target = processor
    try:
        with adk_settings(schema, content=True):
            plan = plan_run(
                RunOptions(
                    eval_sets=[str(eval_set)], agent="tests.scoring.test_no_args_parity:AGENT"
                )
            )
            run_id = execute(plan).run_id
        assert processor.force_flush()
    finally:
        ROUTER.target = None
        processor.shutdown()
    return run_id


def _ours(writer: SpanWriter, run_id: str, match_type: str) -> Scores:
    specs = available_metrics()
    config = parse_config(
        {"criteria": {TRAJECTORY: {"threshold": 1.0, "match_type": match_type}}}, specs
    )
    scoring = score(writer.connection, Selection(run_id=run_id), config, specs).scoring_id
    rows = writer.connection.execute(
        "SELECT case_id, turn_index, score FROM scores WHERE scoring_id = ? AND metric = ? "
        "AND level IN ('turn', 'case')",
        [scoring, TRAJECTORY],
    ).fetchall()
    return {(case, turn): value for case, turn, value in rows}


@cache
def _adk(eval_set: Path, match_type: str) -> dict[str, AdkScores]:
    """google-adk's own TrajectoryEvaluator on ADK's own replay of each case."""
    return {
        case.eval_id: adk_scores(
            TRAJECTORY, {"match_type": match_type}, adk_replay(AGENT, case), case.conversation or []
        )
        for case in load_eval_set_from_file(str(eval_set), "no_args").eval_cases
    }


def _as_adk(ours: Scores, adk: dict[str, AdkScores]) -> dict[str, tuple[list[float], float]]:
    """Ours, shaped as ADK's scores per case: (turn scores, case score)."""
    return {
        case: ([ours[(case, i)] for i in range(len(scores.turns))], ours[(case, None)])
        for case, scores in adk.items()
    }


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, eval_set: Path) -> Iterator[dict[str, Any]]:
    """One database holding a run per schema with responses captured, and one without."""
    writer = SpanWriter.open(tmp_path_factory.mktemp("no_args_runs") / "runs.duckdb")
    ids = {
        "v2": _run(eval_set, writer, "2", responses=True),
        "v1": _run(eval_set, writer, "1", responses=True),
        "no_responses": _run(eval_set, writer, "2", responses=False),
    }
    yield {"writer": writer, **ids}
    writer.close()


@pytest.mark.parametrize("schema", ["v2", "v1"])
@pytest.mark.parametrize("match_type", MATCH_TYPES)
@costly
def test_calls_without_arguments_score_as_in_adk(
    eval_set: Path, runs: dict[str, Any], schema: str, match_type: str
) -> None:
    adk = _adk(eval_set, match_type)
    ours = _as_adk(_ours(runs["writer"], runs[schema], match_type), adk)
    assert ours == {case: (s.turns, s.case) for case, s in adk.items()}
    # ADK itself tells the spellings apart: these cases would not show a difference.
    assert {case: s.case for case, s in adk.items()} == {
        "no_args_both": 1.0,
        "empty_args_both": 1.0,
        "two_turns": 1.0,
        "expected_empty": 0.0,
        "model_sent_empty": 0.0,
    }


@pytest.mark.parametrize("schema", ["v2", "v1"])
def test_the_response_says_whether_the_model_sent_arguments(
    runs: dict[str, Any], schema: str
) -> None:
    writer: SpanWriter = runs["writer"]
    rows = writer.connection.execute(
        "SELECT c.name, c.args, c.args_omitted, t.user_text FROM tool_calls c "
        "JOIN turns t USING (turn_id) WHERE t.run_id = ?",
        [runs[schema]],
    ).fetchall()
    seen = {(name, args, omitted, text) for name, args, omitted, text in rows}
    assert seen == {
        ("lookup", "{}", True, "without args"),
        ("find", '{"city": "Paris"}', False, "without args"),
        ("lookup", "{}", False, "with empty args"),
    }


@pytest.mark.parametrize("match_type", MATCH_TYPES)
@costly
def test_without_the_response_a_call_reads_as_its_span_says(
    eval_set: Path, runs: dict[str, Any], match_type: str
) -> None:
    """Spans cannot tell: every call reads as `{}`, as its execute_tool span records, so
    the cases where the model sent no arguments score as if it had sent `{}`."""
    omitted = (
        runs["writer"]
        .connection.execute(
            "SELECT DISTINCT c.args_omitted FROM tool_calls c JOIN turns t USING (turn_id) "
            "WHERE t.run_id = ? AND c.name = 'lookup'",
            [runs["no_responses"]],
        )
        .fetchall()
    )
    assert omitted == [(None,)]
    adk = _adk(eval_set, match_type)
    ours = _as_adk(_ours(runs["writer"], runs["no_responses"], match_type), adk)
    differ = {case for case, s in adk.items() if ours[case] != (s.turns, s.case)}
    assert differ == {"no_args_both", "two_turns", "expected_empty"}
    assert {case: scores[1] for case, scores in ours.items()} == {
        "no_args_both": 0.0,
        "empty_args_both": 1.0,
        "two_turns": 0.5,
        "expected_empty": 1.0,
        "model_sent_empty": 0.0,
    }
