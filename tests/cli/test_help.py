"""What `--help` and `--version` show a person."""

from __future__ import annotations

import inspect
import itertools
from importlib.metadata import version

import pytest

from tests.support.cli import invoke
from tracegrade import __version__
from tracegrade.cli import serve
from tracegrade.cli.main import app

COMMANDS = [
    (),
    *((str(c.name),) for c in app.registered_commands),
    *((str(g.name),) for g in app.registered_groups),
    ("db", "path"),
]


def test_version() -> None:
    done = invoke("--version")
    assert done.exit_code == 0
    assert done.stdout == f"tracegrade {__version__} (google-adk {version('google-adk')})\n"


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: " ".join(p) or "tracegrade")
def test_flags_show_no_type(path: tuple[str, ...]) -> None:
    done = invoke(*path, "--help")
    assert done.exit_code == 0
    assert "--help" in done.stdout
    assert "<bool>" not in done.stdout


@pytest.mark.parametrize("columns", [60, 80, 100])
def test_help_paragraphs_wrap_at_the_terminal_width(columns: int) -> None:
    done = invoke("serve", "--help", columns=columns)
    description = done.stdout.split("╭")[0].splitlines()[3:]  # after "Usage:" and a blank
    paragraphs: list[list[str]] = [[]]
    for line in description:
        if line.strip():
            paragraphs[-1].append(line.strip())
        elif paragraphs[-1]:
            paragraphs.append([])
    texts = [" ".join(lines) for lines in paragraphs if lines]
    docstring = inspect.getdoc(serve.serve_command) or ""
    documented = [" ".join(p.split()) for p in docstring.split("\n\n")]
    assert texts == documented
    for lines in paragraphs:
        for line, following in itertools.pairwise(lines):
            # A line breaks only where the next word would not fit (no line cut short).
            assert len(line) + 1 + len(following.split()[0]) > columns - 4, (line, following)
