"""Strands Agents' spans (written as Strands writes them: tests/interop/strands_shape.py names
the source): every message is in `gen_ai.client.inference.operation.details` span events,
on the model, tool and agent spans (issue 26, items 6 and 7), and tool arguments only there.
"""

from __future__ import annotations

from tests.interop import strands_shape
from tests.interop.views import rows, trajectory, turns
from tests.support.tiers import costly
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.store import SpanWriter

pytestmark = costly  # every test here: see tests.support.tiers.costly


def test_strands_turn(writer: SpanWriter, captured: BlockingSpanProcessor) -> None:
    strands_shape.write_turn()
    assert captured.force_flush()
    connection = writer.connection

    [turn] = turns(connection)
    assert turn["convention"] == "strands"
    assert turn["user_text"] == strands_shape.USER_TEXT
    assert turn["final_text"] == strands_shape.ANSWER
    assert trajectory(turn) == [("get_weather", {"city": "Paris"})]
    [call] = rows(connection, "SELECT * FROM tool_calls")
    assert (call["call_id"], call["from_parts"], call["is_error"]) == ("tooluse_1", False, False)
    assert call["result"] == '[{"text":"21.5 C, sunny"}]'
    # Two model calls: the agent span's accumulated usage is not a third.
    assert turn["llm_calls"] == 2
    assert (turn["input_tokens"], turn["output_tokens"]) == (2_530, 71)
    model_calls = rows(connection, "SELECT * FROM llm_calls ORDER BY seq")
    assert [c["output_tool_calls"] for c in model_calls] == [1, 0]
    assert [c["output_text"] for c in model_calls] == ["Let me check.", strands_shape.ANSWER]
    [agent] = rows(connection, "SELECT * FROM agent_spans WHERE op = 'agent'")
    assert strands_shape.ANSWER in agent["output_messages"]
