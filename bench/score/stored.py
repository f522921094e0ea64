"""A stored eval run for bench/score's end-to-end measurement: the spans `tracegrade run`
would have written for `synthetic.turns` (answers of 1-2 KB), made through the OTel SDK and
tracegrade's exporter into a DuckDB file.

Each turn is a `tracegrade.eval_turn` span over the ADK spans of `bench/adk_spans.py` (schema
v2, content captured): the actual calls two to a model response, then the final answer.
100k turns make ~1.1M spans and take a few minutes to build, so the file is kept in a cache
folder and reused while the generator and tracegrade's migrations are unchanged.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: adk_spans

from adk_spans import Turn, answer_text, emit_turn, tool_definitions
from synthetic import REPEATS, TOOLS, tool_schema, turns

RUN_ID = "bench-run"
EVAL_SET = "bench_set"
WORDS = (150, 300)  # reference answers of ~1-2 KB
SHORT_WORDS = (20, 40)  # the bar: answers on which ADK's evaluators run ~5-6x faster
PART = 20_000
# Every model call is given the synthetic tools its calls name, with their schemas, as a
# real agent's are (the weather tools of adk_spans would make every call unknown).
SYNTHETIC_TOOLS = tool_definitions({name: tool_schema(name) for name in TOOLS})


def cached_database(n: int, cache: Path, words: tuple[int, int] = WORDS) -> Path:
    """The stored run of `n` turns whose answers have `words` words, built once per
    generator version; a file made by an older tracegrade is migrated first (as
    `tracegrade db upgrade` would), untimed."""
    from tracegrade.store import connect

    key = hashlib.sha256(
        Path(__file__).read_bytes()
        + (Path(__file__).parents[1] / "adk_spans.py").read_bytes()
        + (Path(__file__).parent / "synthetic.py").read_bytes()
        + repr(words).encode()
    ).hexdigest()[:12]
    path = cache / f"score-{n}-{key}.duckdb"
    if not path.exists():
        cache.mkdir(parents=True, exist_ok=True)
        building = path.with_suffix(".building")
        building.unlink(missing_ok=True)
        build(n, building, words)
        shutil.move(building, path)
    connect(path).close()
    return path


def build(n: int, path: Path, words: tuple[int, int] = WORDS) -> None:
    from opentelemetry import trace
    from opentelemetry.context import Context
    from opentelemetry.sdk.trace import TracerProvider

    from tracegrade.capture import BlockingSpanProcessor, DuckDBSpanExporter

    exporter = DuckDBSpanExporter(path)
    provider = TracerProvider()
    provider.add_span_processor(BlockingSpanProcessor(exporter))
    ours = provider.get_tracer("tracegrade", "bench")
    adk = provider.get_tracer("gcp.vertex.agent", "2.13.0")
    run = ours.start_span("tracegrade.eval_run", context=Context(), attributes=_run(n))
    in_run = trace.set_span_in_context(run)
    for start in range(0, n, PART):  # PART is a multiple of REPEATS: no case straddles two
        for i, turn in enumerate(turns(min(PART, n - start), seed=start, words=words)):
            index = start + i
            if index % REPEATS == 0:
                attributes = _case(index // REPEATS, turn)
                ours.start_span("tracegrade.eval_case", context=in_run, attributes=attributes).end()
            with ours.start_as_current_span(
                "tracegrade.eval_turn", context=Context(), attributes=_turn(index, turn.response)
            ):
                emit_turn(adk, _adk_turn(index, turn), f"session-{index}", f"{index:08d}")
    run.end()
    provider.shutdown()
    print(f"built {path}: {exporter.stats.stored:,} spans", file=sys.stderr)


def _case(case: int, turn: Any) -> dict[str, Any]:
    expectation = {
        "turn_index": 0,
        "user_text": f"question {case}",
        "final_text": turn.reference,
        "tool_calls": [{"name": name, "args": args} for name, args in turn.expected],
    }
    return {
        "tracegrade.run_id": RUN_ID,
        "tracegrade.eval_set_id": EVAL_SET,
        "tracegrade.case_id": f"case_{case:06d}",
        "tracegrade.expected": json.dumps({"turns": [expectation]}),
    }


def _run(n: int) -> dict[str, Any]:
    return {
        "tracegrade.run_id": RUN_ID,
        "tracegrade.agent": "bench/agent",
        "tracegrade.eval_sets": json.dumps(
            [{"eval_set_id": EVAL_SET, "path": "bench.evalset.json", "cases": n // REPEATS}]
        ),
        "tracegrade.models": ["gemini-2.5-flash"],
        "tracegrade.repeats": REPEATS,
        "tracegrade.parallel": 4,
        "tracegrade.adk_version": "2.13.0",
        "tracegrade.version": "bench",
        "tracegrade.criteria": "{}",  # ADK's defaults: trajectory 1.0, response match 0.8
    }


def _turn(index: int, response: str) -> dict[str, Any]:
    case = index // REPEATS
    return {
        "tracegrade.run_id": RUN_ID,
        "tracegrade.eval_set_id": EVAL_SET,
        "tracegrade.case_id": f"case_{case:06d}",
        "tracegrade.repeat": index % REPEATS,
        "tracegrade.turn_index": 0,
        "tracegrade.user_text": f"question {case}",
        "tracegrade.final_text": response,
    }


def _adk_turn(index: int, turn: Any) -> Turn:
    calls = list(turn.actual)
    return Turn(
        user_text=f"question {index // REPEATS}",
        responses=[calls[i : i + 2] for i in range(0, len(calls), 2)],
        final_text=turn.response,
        result={"ok": True, "value": 21.5},
        earlier=[("And before?", answer_text(random.Random(index)))],
        tools=SYNTHETIC_TOOLS,
    )
