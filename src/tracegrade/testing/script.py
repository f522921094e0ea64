"""The script format for `ScriptedLlm`: what a scripted model answers, call by call.

A script file is JSON:

    {"responses": [...]}                       answered in order, one per model call
    {"by_user_text": {"hi": [...], ...}}       per user message: the Nth call of a turn
                                               gets the Nth response for that message

Each response is one of: text, tool calls (a model response may hold several), an
error raised by the model (`raise`), or an error response such as a safety block
(`error_code`). `usage` gives the token counts the model reports.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from tracegrade.errors import ScriptError


class ScriptedToolCall(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    args: dict[str, Any] | None = Field(
        default_factory=dict,
        description="the arguments; null sends a call without any, as Gemini does for a "
        "tool without parameters (ADK's eval then reads args None, not {})",
    )
    id: str | None = Field(
        default=None, description="a model-supplied call id; ADK makes one if absent"
    )


class ScriptedUsage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    input: int | None = Field(default=None, description="prompt tokens")
    output: int | None = Field(default=None, description="candidate tokens (without thoughts)")
    thoughts: int | None = None
    cached: int | None = None


class ScriptedResponse(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    text: str | None = None
    tool_calls: list[ScriptedToolCall] = Field(default_factory=list)
    usage: ScriptedUsage | None = None
    raise_: str | None = Field(
        default=None, alias="raise", description="the model raises RuntimeError with this message"
    )
    error_code: str | None = Field(default=None, description="an error response, e.g. SAFETY")
    error_message: str | None = None
    delay_s: float = Field(default=0.0, ge=0, description="wait this long before answering")

    @model_validator(mode="after")
    def _says_something(self) -> ScriptedResponse:
        if not (self.text is not None or self.tool_calls or self.raise_ or self.error_code):
            raise ValueError("a response needs text, tool_calls, raise or error_code")
        return self


class Script(BaseModel):
    model_config = ConfigDict(extra="forbid")

    responses: list[ScriptedResponse] | None = None
    by_user_text: dict[str, list[ScriptedResponse]] | None = None

    @model_validator(mode="after")
    def _one_mode(self) -> Script:
        if (self.responses is None) == (self.by_user_text is None):
            raise ValueError("give exactly one of 'responses' or 'by_user_text'")
        return self


def load_script(path: str | Path) -> Script:
    source = Path(path)
    try:
        data = json.loads(source.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ScriptError(f"model script '{source}': {exc}") from None
    return parse_script(data, str(source))


def parse_script(data: Any, origin: str = "script") -> Script:
    try:
        return Script.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(top level)"
        message = str(first["msg"]).removeprefix("Value error, ")
        raise ScriptError(f"model script '{origin}': {where}: {message}") from None
