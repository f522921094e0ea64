"""A run whose every text is hostile HTML and Markdown: the case id, the user's message, the
tool's arguments and result, the answer and the reference. A page that shows them must
show them as text: no element, no script, no broken table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from google.adk.agents import LlmAgent

from tests.report.helpers import score_with
from tests.support.adk_run import ROUTER
from tracegrade.capture import BlockingSpanProcessor, DuckDBSpanExporter
from tracegrade.harness import RunOptions, run_eval
from tracegrade.scoring import Selection
from tracegrade.store import SpanWriter
from tracegrade.testing import ScriptedLlm

HOSTILE = "</script><script>alert('x')</script><img src=x onerror=alert(1)> | @team #12 *b*"
CASE_ID = "case<b>1</b>"


def lookup(query: str) -> dict[str, Any]:
    """Look something up."""
    return {"found": f"{query} <iframe src=javascript:alert(2)>"}


def _call(query: str) -> dict[str, Any]:
    return {"name": "lookup", "args": {"query": query}}


root_agent = LlmAgent(
    name="hostile",
    model=ScriptedLlm.by_user_text(
        {HOSTILE: [{"tool_calls": [_call(HOSTILE)]}, {"text": f"{HOSTILE} answered"}]}
    ),
    tools=[lookup],
)


def write_eval_set(folder: Path) -> Path:
    turn = {
        "invocation_id": "hostile-1",
        "user_content": {"role": "user", "parts": [{"text": HOSTILE}]},
        "final_response": {"role": "model", "parts": [{"text": f"{HOSTILE} expected"}]},
        "intermediate_data": {"tool_uses": [_call("<b>other</b>")]},
    }
    eval_set = {"eval_set_id": "hostile<set>", "eval_cases": [
        {"eval_id": CASE_ID, "conversation": [turn]}
    ]}  # fmt: skip
    path = folder / "hostile.evalset.json"
    path.write_text(json.dumps(eval_set))
    return path


def make_hostile_run(folder: Path) -> Path:
    """The run, replayed through the real harness and scored, in a database in `folder`."""
    path = folder / "hostile.duckdb"
    writer = SpanWriter.open(path)
    processor = BlockingSpanProcessor(DuckDBSpanExporter(writer=writer))
    ROUTER.target = processor
    try:
        run = run_eval(
            RunOptions(eval_sets=[str(write_eval_set(folder))], agent=f"{__name__}:root_agent")
        )
        assert processor.force_flush()
        score_with(writer.connection, Selection(run_id=run.run_id), {})
    finally:
        ROUTER.target = None
        processor.shutdown()
        writer.close()
    return path
