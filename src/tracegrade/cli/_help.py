"""How every command's `--help` reads: paragraphs wrapped to the terminal, flags untyped.

Typer keeps the single line breaks of a docstring, so a terminal narrower than the source
breaks each line again mid-sentence; and typer 0.29 prints a `<bool>` type after every
flag, which takes no value. Every command is made with `Command`, every group with `Group`.
"""

from __future__ import annotations

import inspect
from typing import Any

from typer.core import TyperCommand, TyperGroup, TyperOption


class _Readable:
    """What `Command` and `Group` add to typer's classes."""

    help: str | None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help = reflow(self.help)

    def get_params(self, ctx: Any) -> list[Any]:
        return _untyped_flags(super().get_params(ctx))  # type: ignore[misc]


class Command(_Readable, TyperCommand):
    """A command whose help reads as below."""


class Group(_Readable, TyperGroup):
    """The same for `tracegrade` itself and its command groups."""


def _untyped_flags(params: list[Any]) -> list[Any]:
    for param in params:
        if isinstance(param, TyperOption) and param.is_flag and param.metavar is None:
            param.metavar = ""  # typer shows the metavar in the type column, for `<bool>`
    return params


def reflow(text: str | None) -> str | None:
    """Each paragraph's lines joined into one, so the terminal wraps it at its own width."""
    if text is None:
        return None
    paragraphs = [" ".join(line.strip() for line in p.splitlines()) for p in _paragraphs(text)]
    return "\n\n".join(paragraphs)


def _paragraphs(text: str) -> list[str]:
    return [p for p in inspect.cleandoc(text).split("\n\n") if p.strip()]
