"""Errors a user can fix.

The library raises subclasses of `TracegradeError` with a message that names the bad
value and, where there is one, the fix. The CLI prints that message on one line without
a traceback; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class TracegradeError(Exception):
    """A problem the user can fix: bad input, a locked database, a missing file."""


class DatabaseError(TracegradeError):
    """The DuckDB file cannot be opened or used as asked."""


class DatabaseLockedError(DatabaseError):
    """Another process holds the DuckDB file for writing."""


class DamagedLogError(DatabaseError):
    """The write-ahead log beside the DuckDB file is damaged: the file was not opened."""


class NothingSelected(TracegradeError):
    """A traffic selection (a window, a sample share, a condition) picked no stored turn:
    nothing was scored. Not a usage error: a small window sampled at 5% is often empty."""

    reason = "nothing_selected"
    """How serve's POST /v1/score names it in a 422 answer, so that a client raises it again."""


class IngestError(TracegradeError):
    """A trace file or OTLP payload cannot be decoded."""


class EvalSetError(TracegradeError):
    """An eval set, test file or criteria config is malformed."""


class ConfigError(TracegradeError):
    """Criteria, prices or another configuration value is invalid."""


class AgentLoadError(TracegradeError):
    """An agent reference cannot be imported."""


class ScriptError(TracegradeError):
    """A scripted model was asked for more responses than its script holds, or the script is bad."""


class ArchiveError(TracegradeError):
    """The Parquet archive cannot be written or read as asked."""


def closest(name: str, known: Iterable[str]) -> str | None:
    """The known name a mistyped one most looks like (for "did you mean"); None if none does."""
    near = difflib.get_close_matches(name, list(known), n=1)
    return near[0] if near else None
