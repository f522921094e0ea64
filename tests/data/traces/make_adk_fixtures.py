#!/usr/bin/env python3
"""Generate the google-adk OTLP/JSON trace fixtures in this folder.

Runs a real google-adk `LlmAgent` (model = tracegrade's `ScriptedLlm`, so no API key
and no network) through `InMemoryRunner`, captures every span with the OTel SDK's
`InMemorySpanExporter`, and writes them as OTLP/JSON lines, one
ExportTraceServiceRequest per trace (= per ADK invocation / user turn), exactly in
the Collector `file` exporter's format. Next to each `<name>.otlp.jsonl` it writes
`<name>.expected.json`: what ADK's own eval code derives from the session's events.

Fixtures (every combination):
    {openinference,adk}_{v2,v1}_{a,b,c}
      openinference  GoogleADKInstrumentor active; ADK content env vars left unset
      adk            ADK's own spans only, with
                     OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY
      v2 / v1        ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN unset / =1
      a / b / c      one turn / two turns / a tool that raises

Each fixture runs in its own Python process (the global TracerProvider can be set
once per process, and the OpenInference patches are process-wide).

Usage (from the repository root, in the venv described in README.md):
    python tests/data/traces/make_adk_fixtures.py            # all 12 fixtures
    python tests/data/traces/make_adk_fixtures.py openinference_v1_a adk_v2_c
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))  # the repository, for tests.data.traces.otlp_json

APP_NAME = "weather_app"
USER_ID = "user-1"
MODEL = "gemini-2.5-flash"

USER_A = "What is the weather in Paris, in Fahrenheit, and what time is it there?"
USER_B2 = "And in Tokyo?"
USER_C = "What is the weather in Atlantis?"

# One script for every scenario: the scripted model answers by the latest user text.
SCRIPT: dict[str, list[dict[str, Any]]] = {
    USER_A: [
        {
            "tool_calls": [
                {"name": "get_weather", "args": {"city": "Paris"}},
                {"name": "get_time", "args": {"city": "Paris"}},
            ],
            "usage": {"input": 120, "output": 18, "thoughts": 7},
        },
        {
            "tool_calls": [{"name": "convert_temperature", "args": {"celsius": 21.5, "to": "F"}}],
            "usage": {"input": 170, "output": 12, "thoughts": 5, "cached": 64},
        },
        {
            "text": "It is 70.7 F in Paris at 14:00.",
            "usage": {"input": 210, "output": 21, "thoughts": 0},
        },
    ],
    USER_B2: [
        {
            "tool_calls": [{"name": "get_weather", "args": {"city": "Tokyo"}}],
            "usage": {"input": 260, "output": 9},
        },
        {
            "text": "It is 18.0 C and cloudy in Tokyo.",
            "usage": {"input": 300, "output": 14, "thoughts": 3},
        },
    ],
    USER_C: [
        {
            "tool_calls": [
                {"name": "get_weather", "args": {"city": "Atlantis"}},
                {"name": "get_time", "args": {"city": "Atlantis"}},
            ],
            "usage": {"input": 118, "output": 16},
        },
        # Never reached: the raising tool ends the invocation.
        {"text": "I could not find Atlantis.", "usage": {"input": 150, "output": 8}},
    ],
}

SCENARIOS = {"a": [USER_A], "b": [USER_A, USER_B2], "c": [USER_C]}

WEATHER = {"Paris": (21.5, "sunny"), "Tokyo": (18.0, "cloudy")}
TIMES = {"Paris": "14:00", "Tokyo": "21:00", "Atlantis": "12:00"}


def get_weather(city: str) -> dict[str, Any]:
    """Returns the current weather for a city."""
    if city not in WEATHER:
        raise ValueError(f"unknown city: {city}")
    temp_c, conditions = WEATHER[city]
    return {"city": city, "temp_c": temp_c, "conditions": conditions}


def get_time(city: str) -> dict[str, Any]:
    """Returns the local time in a city."""
    return {"city": city, "time": TIMES[city]}


def convert_temperature(celsius: float, to: str) -> dict[str, Any]:
    """Converts a Celsius temperature to Fahrenheit ("F") or Kelvin ("K")."""
    value = celsius * 9 / 5 + 32 if to == "F" else celsius + 273.15
    return {"value": round(value, 1), "unit": to}


def fixture_names() -> list[str]:
    return [
        f"{instr}_{schema}_{scenario}"
        for instr in ("openinference", "adk")
        for schema in ("v2", "v1")
        for scenario in SCENARIOS
    ]


def child_env(name: str) -> dict[str, str]:
    instr, schema, _ = name.split("_")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OTEL_", "ADK_", "GOOGLE_", "OPENINFERENCE_"))
    }
    if schema == "v1":
        env["ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN"] = "1"
    if instr == "adk":
        env["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "SPAN_ONLY"
    env["PYTHONHASHSEED"] = "0"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


# ---------------------------------------------------------------- one fixture ----


def _text(content: Any) -> str | None:
    if content is None or not content.parts:
        return None
    texts = [p.text for p in content.parts if p.text is not None]
    return "".join(texts) if texts else None


def expected_from_events(events: list[Any]) -> dict[str, Any]:
    """What ADK's eval derives from the session events (ADK's own code, not by hand)."""
    from google.adk.evaluation._efficiency_evaluators import (
        _InferenceCallCountV1Evaluator,
        _TokenUsageV1Evaluator,
        _ToolCallCountV1Evaluator,
    )
    from google.adk.evaluation.eval_case import get_all_tool_calls
    from google.adk.evaluation.evaluation_generator import EvaluationGenerator

    invocations = EvaluationGenerator.convert_events_to_eval_invocations(events)
    tools = _ToolCallCountV1Evaluator().evaluate_invocations(invocations)
    inferences = _InferenceCallCountV1Evaluator().evaluate_invocations(invocations)
    tokens = _TokenUsageV1Evaluator().evaluate_invocations(invocations)

    turns = []
    for i, inv in enumerate(invocations):
        calls = get_all_tool_calls(inv.intermediate_data)
        details = tokens.per_invocation_results[i].token_usage_details
        assert details is not None  # ADK's token evaluator reports them for every turn
        turns.append(
            {
                "invocation_id": inv.invocation_id,
                "user_text": _text(inv.user_content),
                "final_response": _text(inv.final_response),
                "tool_trajectory": [{"name": c.name, "args": c.args} for c in calls],
                "tool_call_ids": [c.id for c in calls],
                "tool_call_count": tools.per_invocation_results[i].score,
                "inference_call_count": inferences.per_invocation_results[i].score,
                "token_usage": {
                    "input": details.input_tokens,
                    "output": details.output_tokens,
                    "total": details.total_tokens,
                    "details": details.model_dump(exclude_none=True),
                },
            }
        )
    errors = [
        {
            "invocation_id": e.invocation_id,
            "author": e.author,
            "error_code": e.error_code,
            "error_message": e.error_message,
        }
        for e in events
        if e.error_code
    ]
    return {
        "derived_with": (
            "google.adk.evaluation.evaluation_generator.EvaluationGenerator"
            ".convert_events_to_eval_invocations + google.adk.evaluation._efficiency_evaluators"
            " (_ToolCallCountV1Evaluator, _InferenceCallCountV1Evaluator, _TokenUsageV1Evaluator)"
            " + google.adk.evaluation.eval_case.get_all_tool_calls"
        ),
        "turns": turns,
        "overall": {
            "tool_call_count": tools.overall_score,
            "inference_call_count": inferences.overall_score,
            "token_usage_total": tokens.overall_score,
            "note": "ADK averages per-turn values over turns",
        },
        "error_events": errors,
    }


async def _run(name: str) -> None:
    instr, _schema, scenario = name.split("_")

    from opentelemetry import trace
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from tests.data.traces.otlp_json import (
        Placeholders,
        SequentialIds,
        group_by_trace,
        rebase_timestamps,
        to_otlp_json,
        trim_stacktraces,
        write_jsonl,
    )

    # ADK logs the raising tool's traceback (scenario c); the spans carry it anyway.
    logging.getLogger("google_adk").setLevel(logging.CRITICAL)

    provider = TracerProvider(
        resource=Resource.create(
            {"service.name": APP_NAME, "service.instance.id": "fixture-instance-1"}
        ),
        id_generator=SequentialIds(name),
    )
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)  # ADK's own spans use the global provider

    if instr == "openinference":
        from openinference.instrumentation.google_adk import GoogleADKInstrumentor

        GoogleADKInstrumentor().instrument(tracer_provider=provider)

    from google.adk.agents import LlmAgent
    from google.adk.runners import InMemoryRunner
    from google.genai import types

    from tracegrade.testing import ScriptedLlm

    agent = LlmAgent(
        name="weather_agent",
        model=ScriptedLlm.by_user_text(SCRIPT, model=MODEL),
        description="Answers weather questions.",
        instruction="Answer weather questions using the tools.",
        tools=[get_weather, get_time, convert_temperature],
    )
    runner = InMemoryRunner(agent=agent, app_name=APP_NAME)
    session_id = f"session-{name.replace('_', '-')}"
    await runner.session_service.create_session(
        app_name=APP_NAME, user_id=USER_ID, session_id=session_id
    )
    run_errors = []
    for text in SCENARIOS[scenario]:
        message = types.Content(role="user", parts=[types.Part(text=text)])
        try:
            async for _ in runner.run_async(
                user_id=USER_ID, session_id=session_id, new_message=message
            ):
                pass
        except Exception as exc:  # scenario c: the raising tool ends the run
            run_errors.append(f"{type(exc).__name__}: {exc}")
    session = await runner.session_service.get_session(
        app_name=APP_NAME, user_id=USER_ID, session_id=session_id
    )
    assert session is not None
    provider.force_flush()
    spans = exporter.get_finished_spans()

    requests = [to_otlp_json(group) for group in group_by_trace(spans)]
    shift_ns = rebase_timestamps(requests)

    expected = expected_from_events(session.events)
    expected = {
        "fixture": f"{name}.otlp.jsonl",
        "session_id": session_id,
        "app_name": APP_NAME,
        "user_id": USER_ID,
        "run_async_raised": run_errors,
        **expected,
    }

    # Stable placeholders for ADK's random ids, the expectations first (so tool call
    # ids are numbered in trajectory order), then the spans, with one shared mapping.
    placeholders = Placeholders()
    expected = json.loads(placeholders.apply(json.dumps(expected)))
    text = placeholders.apply(json.dumps(requests))
    text = _rebase_event_timestamps(text, shift_ns)
    # Machine-specific paths in exception stack traces.
    text = text.replace(str(Path(sys.prefix)), "<venv>").replace(str(HERE), "tests/data/traces")
    requests = json.loads(text)
    trim_stacktraces(requests)
    write_jsonl(HERE / f"{name}.otlp.jsonl", requests)
    (HERE / f"{name}.expected.json").write_text(json.dumps(expected, indent=2) + "\n")
    print(
        f"{name}: {len(spans)} spans, {len(requests)} traces,"
        f" ids replaced: {len(placeholders.mapping)}"
    )


def _rebase_event_timestamps(text: str, shift_ns: int) -> str:
    """OpenInference's input/output.value hold ADK Event JSON with a wall-clock
    `"timestamp": <float seconds>`; shift it like the span times so it stays coherent."""
    import re

    def sub(match: re.Match[str]) -> str:
        seconds = float(match.group(2)) + shift_ns / 1e9
        return f"{match.group(1)}{seconds:.6f}"

    # Inside an attribute string the JSON is escaped: \"timestamp\": 1767...
    return re.sub(r'(\\"timestamp\\": ?)(1[0-9]{9}\.[0-9]+)', sub, text)


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "--one":
        asyncio.run(_run(argv[1]))
        return 0
    names = argv or fixture_names()
    unknown = sorted(set(names) - set(fixture_names()))
    if unknown:
        print(f"unknown fixture(s): {', '.join(unknown)}", file=sys.stderr)
        return 2
    for name in names:
        subprocess.run([sys.executable, __file__, "--one", name], env=child_env(name), check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
