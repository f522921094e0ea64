"""What scoring builds from a run's spans (queries/scoring/00_selected.sql) is what the
public views give for the same turns, although scoring takes shortcuts: it skips parsing
the model calls' messages of turns whose eval-turn span records the texts, reads the
eval-case spans once, and checks each distinct tool offer once."""

from __future__ import annotations

from typing import Any

import duckdb
import pytest

from tests.support.paths import DATA
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.harness import RunOptions, run_eval
from tracegrade.scoring.functions import register_functions
from tracegrade.scoring.selected import drop_selected, select_traces
from tracegrade.scoring.selection import Selection
from tracegrade.store import SpanWriter

pytestmark = costly  # every test here: see tests.support.tiers.costly

SHOP = DATA / "evalsets" / "harness" / "shop.evalset.json"
SHOP_AGENT = "tests.harness.shop_agent.agent:root_agent"


@pytest.fixture
def shop_run(captured: BlockingSpanProcessor) -> str:
    result = run_eval(RunOptions(eval_sets=[str(SHOP)], agent=SHOP_AGENT))
    assert captured.force_flush()
    return result.run_id


def _rows(connection: duckdb.DuckDBPyConnection, query: str, *params: Any) -> list[Any]:
    return sorted(connection.execute(query, list(params)).fetchall(), key=repr)


def _selected(connection: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, list[Any]]:
    register_functions(connection)
    # Rebuilt from spans, as the writer keeps them (tests/store/test_turn_facts.py).
    select_traces(connection, Selection(run_id=run_id).trace_predicate(), read_facts=False)
    try:
        return {
            "turns": _rows(connection, "SELECT * FROM scoring_turns"),
            "tool_calls": _rows(connection, "SELECT * FROM scoring_tool_calls"),
            "expected": _rows(connection, "SELECT * FROM scoring_expected_turns"),
        }
    finally:
        drop_selected(connection)


def _views(connection: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, list[Any]]:
    return {
        "turns": _rows(connection, "SELECT * FROM turns WHERE run_id = ?", run_id),
        "tool_calls": _rows(
            connection,
            "SELECT * EXCLUDE (valid, validity_errors) FROM tool_calls "
            "WHERE turn_id IN (SELECT turn_id FROM turns WHERE run_id = ?)",
            run_id,
        ),
        "expected": _rows(connection, "SELECT * FROM expected_turns WHERE run_id = ?", run_id),
    }


def test_scoring_builds_the_turns_the_views_give(writer: SpanWriter, shop_run: str) -> None:
    connection = writer.connection
    views = _views(connection, shop_run)
    assert len(views["turns"]) >= 5
    assert views["tool_calls"]
    assert views["expected"]
    assert _selected(connection, shop_run) == views


def test_a_turn_without_recorded_texts_takes_them_from_its_model_calls(
    writer: SpanWriter, shop_run: str
) -> None:
    """An eval-turn span without the texts (and without `attrs`, as another writer may
    store it): scoring parses that turn's messages, as the view does."""
    connection = writer.connection
    connection.execute(
        "UPDATE spans SET attrs = NULL, attributes = json_merge_patch(attributes, "
        """'{"tracegrade.user_text": null, "tracegrade.final_text": null}') """
        "WHERE name = 'tracegrade.eval_turn'"
    )
    views = _views(connection, shop_run)
    texts = [(row[28], row[29]) for row in views["turns"]]  # user_text, final_text
    assert any(user and final for user, final in texts)
    assert _selected(connection, shop_run) == views
