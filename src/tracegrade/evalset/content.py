"""Light models of the google-genai shapes that eval-set files embed.

google-genai's own types forbid unknown keys and carry dozens of fields a scorer never
reads; these keep what grading needs (text, function calls with name and args) and ignore
the rest, so a file written by a newer ADK still loads. Keys are accepted in snake_case
and camelCase, as genai accepts them.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel, to_snake


class FileModel(BaseModel):
    """Base of every model that mirrors an ADK file: camelCase or snake_case keys, unknown
    keys ignored, error locations reported by field name (snake_case)."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        # populate_by_name rather than 2.11's validate_by_name: we support pydantic >= 2.7.
        populate_by_name=True,
        loc_by_alias=False,
        extra="ignore",
        frozen=True,
    )


class ClosedModel(FileModel):
    """A mirror of a model that ADK (or google-genai) refuses unknown keys on. Those keys are
    kept aside (`model_extra`) so the loader can name them (see `unknown_keys`): a key ADK
    refuses is usually an expectation in the wrong place, and must not vanish unnoticed."""

    model_config = ConfigDict(extra="allow")

    ADK_ALSO_KNOWS: ClassVar[frozenset[str]] = frozenset()
    """Fields of ADK's model that no grader here reads (snake_case): known, not refused."""

    def unknown_keys(self) -> list[str]:
        """The keys of this object that ADK's model refuses, as written."""
        extra = self.model_extra or {}
        return [key for key in extra if to_snake(key) not in self.ADK_ALSO_KNOWS]


class FunctionCall(ClosedModel):
    """genai `FunctionCall`: a tool call the model asked for."""

    name: str = Field(
        description="Tool name. genai allows it to be absent; a call is useless "
        "for grading without one, so it is required here."
    )
    args: dict[str, Any] | None = Field(
        default=None,
        description="Arguments as decoded JSON. Absent/null and `{}` differ: ADK compares "
        "args with `==`, so an expected `{}` does not match a call without args.",
    )
    id: str | None = Field(default=None, description="Call id; ignored by ADK's matching.")

    ADK_ALSO_KNOWS = frozenset({"partial_args", "will_continue"})


class FunctionResponse(ClosedModel):
    """genai `FunctionResponse`: what a tool returned."""

    name: str | None = Field(default=None, description="Tool name.")
    response: dict[str, Any] | None = Field(default=None, description="Tool result object.")
    id: str | None = Field(default=None, description="Id of the call this answers.")

    ADK_ALSO_KNOWS = frozenset({"parts", "scheduling", "will_continue"})


class Part(ClosedModel):
    """genai `Part`: one piece of a message."""

    text: str | None = Field(default=None, description="Text, if this part is text.")
    thought: bool | None = Field(default=None, description="Marks model reasoning text.")
    function_call: FunctionCall | None = Field(default=None, description="A tool call.")
    function_response: FunctionResponse | None = Field(default=None, description="A tool result.")
    inline_data: dict[str, Any] | None = Field(
        default=None, description="Inline media (kept opaque; marks a non-text user message)."
    )
    file_data: dict[str, Any] | None = Field(
        default=None, description="Media by URI (kept opaque; marks a non-text user message)."
    )

    ADK_ALSO_KNOWS = frozenset(
        {
            "audio_transcription", "code_execution_result", "executable_code",
            "media_processing", "media_resolution", "part_metadata", "speech_metadata",
            "thought_signature", "tool_call", "tool_response", "video_metadata",
        }
    )  # fmt: skip

    @property
    def is_media(self) -> bool:
        """Whether this part carries media rather than text or a tool exchange."""
        return self.inline_data is not None or self.file_data is not None


class Content(ClosedModel):
    """genai `Content`: a message of ordered parts."""

    role: str | None = Field(default=None, description="`user` or `model`.")
    parts: list[Part] | None = Field(default=None, description="The message's parts, in order.")


def content_text(content: Content | None) -> str | None:
    """The text of a message as ADK's response metrics read it, or None without a message.

    ADK joins the non-empty `text` of every part with a newline (thought text included),
    and reads a message without text as "".
    """
    if content is None:
        return None
    return "\n".join(part.text for part in content.parts or [] if part.text)


def function_calls(content: Content | None) -> list[FunctionCall]:
    """The function calls among a message's parts, in order."""
    if content is None:
        return []
    return [part.function_call for part in content.parts or [] if part.function_call]
