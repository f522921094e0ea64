"""`/v1/sql` checks tool calls against their schemas as a local connection does.

The check is a Python function the views call through a temporary macro; temporary
objects belong to one connection, and the server runs each query on a cursor of its own,
so each cursor must be given the check (without it every call reads "not checked").
"""

from __future__ import annotations

from pathlib import Path

from tests.support.adk_run import adk_settings, run_scenario
from tests.support.scenarios import Scenario
from tests.support.tool_agents import INVALID_CALLS, VALID_CALLS, tools_agent
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.store import SpanWriter, connect

from .helpers import start_server

QUERY = "SELECT name, valid, validity_errors FROM tool_calls ORDER BY start_ns"


def test_served_tool_calls_are_checked_like_local_ones(
    tmp_path: Path, db_path: Path, writer: SpanWriter, captured: BlockingSpanProcessor
) -> None:
    calls = VALID_CALLS + [call for call, _ in INVALID_CALLS]
    with adk_settings("2", True):
        run_scenario(Scenario("tools", lambda: tools_agent(calls), ("Go",)))
    assert captured.force_flush()
    writer.close()
    local = connect(db_path, read_only=True)
    try:
        expected = [list(row) for row in local.execute(QUERY).fetchall()]
    finally:
        local.close()
    assert [valid for _, valid, _ in expected].count(False) == len(INVALID_CALLS)

    server = start_server(tmp_path, db=db_path, token="")
    try:
        served = server.rows(QUERY)
    finally:
        server.stop()
    assert [[name, valid] for name, valid, _ in served] == [[n, v] for n, v, _ in expected]
    assert [errors for _, _, errors in served] == [e for _, _, e in expected]
