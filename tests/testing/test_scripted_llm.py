"""ScriptedLlm: a google-adk model that replays a script, and says clearly when it cannot."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from google.adk.agents import LlmAgent
from google.adk.runners import InMemoryRunner
from google.genai import types

from tracegrade.errors import ScriptError
from tracegrade.testing import ScriptedLlm, load_script


def lookup(city: str) -> dict[str, Any]:
    """Look a city up."""
    return {"city": city, "found": True}


def _ask(model: ScriptedLlm, *texts: str) -> list[list[Any]]:
    """Each turn's events as (author, text or function call name)."""

    async def run() -> list[list[Any]]:
        runner = InMemoryRunner(agent=LlmAgent(name="a", model=model, tools=[lookup]), app_name="t")
        session = await runner.session_service.create_session(app_name="t", user_id="u")
        turns = []
        for text in texts:
            message = types.Content(role="user", parts=[types.Part(text=text)])
            events = [
                e
                async for e in runner.run_async(
                    user_id="u", session_id=session.id, new_message=message
                )
            ]
            turns.append([_what(e) for e in events if e.content and e.content.parts])
        return turns

    return asyncio.run(run())


def _what(event: Any) -> Any:
    part = event.content.parts[0]
    if part.function_call:
        return ("call", part.function_call.name, dict(part.function_call.args))
    if part.function_response:
        return ("result", part.function_response.name)
    return ("text", part.text)


def test_by_user_text_answers_each_turn_from_its_own_script() -> None:
    model = ScriptedLlm.by_user_text(
        {
            "Find Paris": [
                {"tool_calls": [{"name": "lookup", "args": {"city": "Paris"}}]},
                {"text": "Found it."},
            ],
            "Thanks": [{"text": "You are welcome."}],
        }
    )
    assert _ask(model, "Find Paris", "Thanks") == [
        [("call", "lookup", {"city": "Paris"}), ("result", "lookup"), ("text", "Found it.")],
        [("text", "You are welcome.")],
    ]


def test_usage_is_reported_as_the_model_would(captured: Any, writer: Any) -> None:
    model = ScriptedLlm.from_responses(
        [{"text": "Hi.", "usage": {"input": 10, "output": 3, "thoughts": 2, "cached": 4}}]
    )
    _ask(model, "Hello")
    assert captured.force_flush()
    rows = writer.connection.execute(
        "SELECT input_tokens, output_tokens, reasoning_tokens, cached_tokens FROM llm_calls"
    ).fetchall()
    assert rows == [(10, 5, 2, 4)]


def test_an_exhausted_script_is_a_clear_error() -> None:
    model = ScriptedLlm.from_responses([{"text": "only once"}])
    _ask(model, "first")
    with pytest.raises(ScriptError, match="script exhausted after 1 responses"):
        _ask(model, "second")
    model.reset()
    assert _ask(model, "again") == [[("text", "only once")]]


def test_an_unscripted_message_names_the_ones_scripted() -> None:
    model = ScriptedLlm.by_user_text({"Hello": [{"text": "Hi."}]})
    with pytest.raises(
        ScriptError, match=r"no script for user message 'Bye' \(scripted: 'Hello'\)"
    ):
        _ask(model, "Bye")


def test_a_raise_response_makes_the_model_raise() -> None:
    model = ScriptedLlm.from_responses([{"raise": "backend down"}])
    with pytest.raises(RuntimeError, match="backend down"):
        _ask(model, "Hi")


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"responses": [{}]}, r"responses\.0: a response needs text"),
        (
            {"responses": [], "by_user_text": {}},
            r"\(top level\): give exactly one of 'responses' or 'by_user_text'",
        ),
        (
            {"responses": [{"text": "x", "tone": "warm"}]},
            r"responses\.0\.tone: Extra inputs are not permitted",
        ),
    ],
)
def test_bad_scripts_name_the_file_and_field(tmp_path: Path, document: Any, message: str) -> None:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(document))
    with pytest.raises(ScriptError, match=f"model script '{path}': {message}"):
        load_script(path)
