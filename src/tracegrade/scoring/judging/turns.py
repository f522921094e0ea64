"""What judges read about each turn, from the views: texts, model calls, tool calls, and
what the eval set expected. `load_turns` reads them for a set of turn ids at once (the
queries in `queries/judging/`); `invocations` and `templates` shape them for a judge.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import duckdb

from tracegrade._resources import query_text
from tracegrade.scoring.matching import MATCHED_EXPECTED

GroupKey = tuple[Any, ...]


@dataclass(frozen=True)
class ToolCallData:
    seq: int
    name: str
    call_id: str | None
    args: Any
    """Decoded arguments as the model sent them; None when not captured."""
    args_captured: bool
    result: Any
    is_error: bool
    error_message: str | None
    response_key: str | None
    end_ns: int


@dataclass(frozen=True)
class ModelCallData:
    seq: int
    agent: str | None
    end_ns: int
    is_error: bool
    response_key: str
    system_instructions: Any
    """The recorded request: GenAI-semconv system instructions (ADK schema v2)..."""
    tool_definitions: Any
    llm_request: Any
    """... or ADK v1's whole request (genai JSON)."""
    output: Any
    """The response as recorded (semconv output messages, or v1's LlmResponse)."""
    content_captured: bool


@dataclass(frozen=True)
class Expected:
    user_text: str
    final_text: str | None
    intermediate_texts: list[str]
    rubrics: list[dict[str, Any]]
    case_rubrics: list[dict[str, Any]]


@dataclass(frozen=True)
class TurnData:
    turn_id: str
    trace_id: str
    run_id: str | None
    eval_set_id: str | None
    case_id: str | None
    repeat: int | None
    turn_index: int | None
    session_id: str | None
    start_ns: int
    user_text: str | None
    final_text: str | None
    is_error: bool
    sample_key: int
    expected: Expected | None
    model_calls: list[ModelCallData] = field(default_factory=list)
    tool_calls: list[ToolCallData] = field(default_factory=list)
    scenario: dict[str, Any] | None = None
    """A conversation scenario's starting_prompt, conversation_plan and user_persona."""

    @property
    def group(self) -> GroupKey:
        """The conversation the turn belongs to: its case repeat, or its session."""
        if self.run_id is not None:
            return ("case", self.run_id, self.eval_set_id, self.case_id, self.repeat)
        return ("session", self.session_id or self.turn_id)

    def missing_content(self) -> str | None:
        """Why a judge cannot see this turn as the agent ran it, or None."""
        if self.user_text is None or not all(c.content_captured for c in self.model_calls):
            return "the turn's messages were not captured"
        if not all(c.args_captured for c in self.tool_calls):
            return "the turn's tool arguments were not captured"
        return None


def load_turns(
    connection: duckdb.DuckDBPyConnection, earlier: Iterable[str] = ()
) -> dict[str, TurnData]:
    """The scored turns and the `earlier` ones named, with their calls, keyed by turn id."""
    # The scored turns are in `scored_turns` already: the turns view is slow to compute.
    connection.execute(
        "CREATE OR REPLACE TEMP TABLE judged_turn_rows AS "
        "SELECT * EXCLUDE (has_expected) FROM scored_turns"
    )
    others = sorted(set(earlier))
    if others:
        connection.execute(
            "INSERT INTO judged_turn_rows SELECT * FROM turns WHERE list_contains(?, turn_id) "
            "AND turn_id NOT IN (SELECT turn_id FROM judged_turn_rows)",
            [others],
        )
    connection.execute(
        "CREATE OR REPLACE TEMP TABLE judged_turns AS SELECT turn_id FROM judged_turn_rows"
    )
    connection.execute(MATCHED_EXPECTED)  # empty unless sessions were matched to an eval set
    models = _by_turn(_rows(connection, "model_calls"), _model_call)
    tools = _by_turn(_rows(connection, "tool_calls"), _tool_call)
    return {
        row["turn_id"]: _turn(row, models.get(row["turn_id"], []), tools.get(row["turn_id"], []))
        for row in _rows(connection, "turns")
    }


def _rows(connection: duckdb.DuckDBPyConnection, step: str) -> list[dict[str, Any]]:
    cursor = connection.execute(query_text("judging", step))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _by_turn(rows: Sequence[dict[str, Any]], make: Any) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for row in rows:
        out.setdefault(row["turn_id"], []).append(make(row))
    return out


def _turn(row: dict[str, Any], models: list[ModelCallData], tools: list[ToolCallData]) -> TurnData:
    expected = None
    if row["has_expected"]:
        expected = Expected(
            user_text=row["expected_user_text"] or "",
            final_text=row["expected_final_text"],
            intermediate_texts=_json(row["expected_intermediate_texts"]) or [],
            rubrics=_json(row["expected_rubrics"]) or [],
            case_rubrics=_json(row["case_rubrics"]) or [],
        )
    return TurnData(
        turn_id=row["turn_id"],
        trace_id=row["trace_id"],
        run_id=row["run_id"],
        eval_set_id=row["eval_set_id"],
        case_id=row["case_id"],
        repeat=row["repeat"],
        turn_index=row["turn_index"],
        session_id=row["session_id"],
        start_ns=int(row["start_ns"]),
        user_text=row["user_text"],
        final_text=row["final_text"],
        is_error=bool(row["is_error"]),
        sample_key=int(row["sample_key"]),
        expected=expected,
        model_calls=models,
        tool_calls=tools,
        scenario=_json(row["scenario"]),
    )


def _model_call(row: dict[str, Any]) -> ModelCallData:
    return ModelCallData(
        seq=int(row["seq"]),
        agent=row["agent_name"],
        end_ns=int(row["end_ns"]),
        is_error=bool(row["is_error"]),
        response_key=row["response_key"],
        system_instructions=_json(row["system_instructions"]),
        tool_definitions=_json(row["tool_definitions"]),
        llm_request=_json(row["llm_request"]),
        output=_json(row["output"]),
        content_captured=bool(row["content_captured"]),
    )


def _tool_call(row: dict[str, Any]) -> ToolCallData:
    return ToolCallData(
        seq=int(row["seq"]),
        name=row["name"],
        call_id=row["call_id"],
        args=_json(row["args"]),
        args_captured=bool(row["args_captured"]),
        result=_json(row["result"]),
        is_error=bool(row["is_error"]),
        error_message=row["error_message"],
        response_key=row["response_span_id"],
        end_ns=int(row["end_ns"]),
    )


def _json(text: Any) -> Any:
    if text is None or not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text
