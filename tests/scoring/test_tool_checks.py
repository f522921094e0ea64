"""The schema check's dialect conversion, tool_error_rate's options, and the guard on the
user's error predicate."""

from __future__ import annotations

import json
from typing import Any

import duckdb
import pytest

from tests.scoring.scorer_inputs import details, scores
from tests.support.tiers import costly
from tracegrade.errors import ConfigError
from tracegrade.scoring import available_metrics, parse_config
from tracegrade.scoring.inputs import load_inputs
from tracegrade.scoring.predicate import check_predicate
from tracegrade.store import connect
from tracegrade.store.tool_schema import check_call, to_json_schema


def test_openapi_style_schemas_become_json_schema() -> None:
    dumped = {  # google-genai's Schema as ADK dumps it into gen_ai.tool.definitions
        "type": "OBJECT",
        "properties": {
            "when": {"type": "STRING", "format": "date-time", "nullable": True},
            "mode": {"type": "STRING", "enum": ["a", "b"], "nullable": True},
            "n": {"any_of": [{"type": "INTEGER", "minimum": 1.0}, {"type": "NULL"}]},
            "tags": {"type": "ARRAY", "items": {"type": "STRING"}, "max_items": 2},
            "max_length": {"type": "STRING"},  # a property named like a keyword stays
        },
        "required": ["when"],
        "property_ordering": ["when", "mode"],
    }
    assert to_json_schema(dumped) == {
        "type": "object",
        "properties": {
            "when": {"type": ["string", "null"], "format": "date-time"},
            "mode": {"type": ["string", "null"], "enum": ["a", "b", None]},
            "n": {"anyOf": [{"type": "integer", "minimum": 1.0}, {"type": "null"}]},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
            "max_length": {"type": "string"},
        },
        "required": ["when"],
    }
    json_schema = {"type": "object", "properties": {"max_length": {"type": "string"}}}
    assert to_json_schema(json_schema) is json_schema


@pytest.mark.parametrize(
    ("args", "kinds"),
    [
        ({"when": None, "mode": None, "n": 2}, []),
        ({"when": "noon"}, [("when", "bad_format")]),
        ({"when": None, "n": 0}, [("n", "schema_mismatch")]),
        ({"when": None, "tags": ["a", "b", "c"]}, [("tags", "out_of_range")]),
        ({}, [("when", "missing_argument")]),
    ],
)
def test_a_converted_schema_checks_as_declared(
    args: dict[str, Any], kinds: list[tuple[str, str]]
) -> None:
    schema = {
        "type": "OBJECT",
        "properties": {
            "when": {"type": "STRING", "format": "date-time", "nullable": True},
            "mode": {"type": "STRING", "enum": ["a", "b"], "nullable": True},
            "n": {"any_of": [{"type": "INTEGER", "minimum": 1.0}, {"type": "NULL"}]},
            "tags": {"type": "ARRAY", "items": {"type": "STRING"}, "max_items": 2},
        },
        "required": ["when"],
    }
    checked = check_call(True, json.dumps(schema), json.dumps(args))
    assert checked["valid"] is (not kinds)
    assert [(e["argument"], e["kind"]) for e in checked["errors"]] == kinds


def test_an_unusable_schema_is_not_checked_rather_than_failed() -> None:
    checked = check_call(True, '{"type": "object", "$ref": "#/nowhere"}', "{}")
    assert checked["valid"] is None
    assert checked["errors"][0]["kind"] == "not_checked"


def _calls(connection: duckdb.DuckDBPyConnection, rows: list[dict[str, Any]]) -> None:
    names = ["turn_id", "seq", "name", "raw_args", "result", "tool_type", "is_error", "error_kind"]
    names += ["error_message", "args_captured"]
    columns: dict[str, list[Any]] = {n: [r.get(n) for r in rows] for n in names}
    turns = sorted({r["turn_id"] for r in rows})
    load_inputs(
        connection,
        {
            "scored_turns": {"turn_id": turns, "is_error": [False] * len(turns)},
            "scored_calls": columns,
        },
    )


def _call(turn: str, seq: int, result: str | None, **extra: Any) -> dict[str, Any]:
    base = {"turn_id": turn, "seq": seq, "name": f"tool{seq}", "raw_args": "{}", "result": result}
    return base | {"is_error": False, "args_captured": True} | extra


@pytest.fixture(scope="module")
def connection() -> duckdb.DuckDBPyConnection:
    """One for the module (a new one makes every view, ~1 s): load_inputs empties the tables."""
    return connect(":memory:")


@costly
def test_blank_results_count_as_errors_unless_switched_off(
    connection: duckdb.DuckDBPyConnection,
) -> None:
    _calls(
        connection,
        [
            _call("t1", 1, '{"result": null}'),
            _call("t1", 2, "{}"),
            _call("t1", 3, '{"result": "ok"}'),
            _call("t1", 4, '{"result": null}', tool_type="TransferToAgentTool"),
            _call("t2", 1, None, args_captured=False),  # not captured: not blank
        ],
    )
    assert scores(connection, "tool_error_rate") == {"t1": 0.5, "t2": 0.0}
    kinds = [e["kind"] for e in details(connection, "tool_error_rate")["t1"]["errors"]]
    assert kinds == ["blank_result", "blank_result"]
    assert scores(connection, "tool_error_rate", blank_is_error=False) == {"t1": 0.0, "t2": 0.0}


def test_the_error_predicate_marks_domain_errors_with_the_result(
    connection: duckdb.DuckDBPyConnection,
) -> None:
    _calls(
        connection,
        [
            _call("t1", 1, '{"status": "failed", "why": "sold out"}'),
            _call("t1", 2, '{"status": "ok"}'),
            _call(
                "t1",
                3,
                '{"error": "unknown isbn 000"}',
                is_error=True,
                error_kind="returned_error",
                error_message="unknown isbn 000",
            ),
        ],
    )
    predicate = "result->>'status' = 'failed'"
    assert scores(connection, "tool_error_rate") == {"t1": pytest.approx(1 / 3)}
    assert scores(connection, "tool_error_rate", error_predicate=predicate) == {
        "t1": pytest.approx(2 / 3)
    }
    errors = details(connection, "tool_error_rate", error_predicate=predicate)["t1"]["errors"]
    assert [(e["kind"], e["message"]) for e in errors] == [
        (
            "domain_error",
            'error_predicate matched its result: {"status": "failed", "why": "sold out"}',
        ),
        ("returned_error", "unknown isbn 000"),
    ]
    # The next metric run without the option has no predicate left over.
    assert scores(connection, "tool_error_rate") == {"t1": pytest.approx(1 / 3)}


@pytest.mark.parametrize(
    ("expression", "why"),
    [
        ("1); DROP TABLE spans; --", "not one SQL condition"),
        ("true) FROM read_csv('/etc/passwd') _tg_call --", "not one SQL condition"),
        ("(SELECT count(*) FROM spans) > 0", "may not hold a subquery"),
        ("count(*) > 1", "may not call count_star()"),
        ("nextval('s') > 1", "nextval() is not allowed"),
        ("spans.name = 'x'", "may use only name, args, result"),
        ("nope(result)", "nope"),
        ("result = ", "cannot parse"),
    ],
)
def test_the_error_predicate_must_be_one_read_only_expression(expression: str, why: str) -> None:
    with pytest.raises(ConfigError, match="error_predicate") as raised:
        check_predicate(expression)
    assert why in str(raised.value)


def test_a_bad_predicate_in_the_config_names_the_field() -> None:
    specs = available_metrics()
    config = {"criteria": {"tool_error_rate": {"max": 0.1, "error_predicate": "count(*) > 1"}}}
    with pytest.raises(ConfigError, match=r"criteria\.tool_error_rate\.error_predicate: "):
        parse_config(config, specs)
    good = {"criteria": {"tool_error_rate": {"max": 0.1, "errorPredicate": "name = 'x'"}}}
    options = parse_config(good, specs).criteria["tool_error_rate"].options
    assert options == {"blank_is_error": True, "error_predicate": "name = 'x'"}
