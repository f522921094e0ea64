"""The generated parts of the docs (the MkDocs site under docs/), each made from the code: the
command reference in docs/commands.md, the exit codes in docs/exit-codes.md, the data model
in docs/data-model.md and the scorers' input tables in docs/metrics.md.

    python scripts/docs.py           check every generated section is current (exit 1 if not)
    python scripts/docs.py --write   rewrite them

A section sits between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->` in its file.
CI runs the check (.ci/run), and so does tests/test_docs.py.
"""

from __future__ import annotations

import ast
import inspect
import os
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import typer
from typer.testing import CliRunner

from tracegrade import exit_codes as exit_codes_module
from tracegrade.cli.main import app
from tracegrade.scoring.inputs import documented_inputs, documented_macros
from tracegrade.store import connect
from tracegrade.store.schema_docs import relations

ROOT = Path(__file__).resolve().parents[1]
HELP_ENV = {"COLUMNS": "100", "NO_COLOR": "1", "TERM": "dumb"}


def schema() -> str:
    """Every table and view, column by column, from the SQL files' headers."""
    parts = []
    for relation in relations(connect(":memory:")):
        rows = "\n".join(f"| `{c.name}` | {c.type} | {c.doc} |" for c in relation.columns)
        doc = relation.doc[0].upper() + relation.doc[1:]
        parts.append(
            f"## `{relation.name}` ({relation.kind})\n\n{doc}\n\n"
            f"| column | type | meaning |\n| --- | --- | --- |\n{rows}\n"
        )
    return "\n".join(parts)


def scorer_inputs() -> str:
    """The tables a metric's SQL reads and the macros over them, from queries/scoring/'s
    headers (the contract for queries/scorers/ and a user's --metrics folder)."""
    parts = []
    for relation in documented_inputs():
        rows = "\n".join(f"| `{c.name}` | {c.type} | {c.doc} |" for c in relation.columns)
        doc = relation.doc[0].upper() + relation.doc[1:]
        also = ""
        if relation.extends:
            link = f"[`{relation.extends}`](data-model.md#{relation.extends}-view)"
            also = f"Every column of {link}, and:\n\n"
        parts.append(
            f"### `{relation.name}`\n\n{doc}\n\n{also}"
            f"| column | type | meaning |\n| --- | --- | --- |\n{rows}\n"
        )
    macros = "\n".join(f"| `{signature}` | {doc} |" for signature, doc in documented_macros())
    parts.append(f"### Macros over them\n\n| macro | what it gives |\n| --- | --- |\n{macros}\n")
    return "\n".join(parts)


def command_paths(
    typer_app: typer.Typer, prefix: tuple[str, ...] = ()
) -> Iterator[tuple[str, ...]]:
    """Every command of the app, as typed after `tracegrade`, in the order they were added."""
    for command in typer_app.registered_commands:
        if not command.hidden and command.callback is not None:
            yield (*prefix, command.name or command.callback.__name__.replace("_", "-"))
    for group in typer_app.registered_groups:
        if group.typer_instance is not None and group.name:
            yield from command_paths(group.typer_instance, (*prefix, group.name))


def cli_help() -> str:
    """Each command's --help, as a terminal 100 columns wide shows it."""
    runner = CliRunner()
    blocks = []
    for path in command_paths(app):
        result = runner.invoke(app, [*path, "--help"], env=HELP_ENV)
        if result.exit_code != 0:
            raise SystemExit(f"tracegrade {' '.join(path)} --help failed: {result.output}")
        text = "\n".join(line.rstrip() for line in result.output.splitlines()).strip("\n")
        blocks.append(f"## `tracegrade {' '.join(path)}`\n\n```text\n{text}\n```\n")
    return "\n".join(blocks)


def exit_codes() -> str:
    """The ExitCode enum as a table, each code with the docstring under it."""
    docs: dict[str, str] = {}
    body = ast.parse(inspect.getsource(exit_codes_module)).body
    enum = next(node for node in body if isinstance(node, ast.ClassDef))
    for node, after in zip(enum.body, [*enum.body[1:], None], strict=True):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.targets[0], ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
        ):
            docs[node.targets[0].id] = str(after.value.value)
    rows = "\n".join(
        f"| {code.value} | `{code.name}` | {' '.join(docs.get(code.name, '').split())} |"
        for code in exit_codes_module.ExitCode
    )
    return f"| code | name | meaning |\n| --- | --- | --- |\n{rows}\n"


SECTIONS: dict[str, dict[str, Callable[[], str]]] = {
    "docs/commands.md": {"cli": cli_help},
    "docs/exit-codes.md": {"exit-codes": exit_codes},
    "docs/data-model.md": {"schema": schema},
    "docs/metrics.md": {"scorer-inputs": scorer_inputs},
}


def render(text: str, sections: dict[str, Callable[[], str]], where: str) -> str:
    """`text` with each of `sections` regenerated in place."""
    for name, make in sections.items():
        pattern = re.compile(rf"(<!-- generated:{name} -->\n).*?(<!-- /generated:{name} -->)", re.S)
        if not pattern.search(text):
            raise SystemExit(f"{where} has no <!-- generated:{name} --> section")
        text = _replace(pattern, make().rstrip("\n") + "\n", text)
    return text


def _replace(pattern: re.Pattern[str], body: str, text: str) -> str:
    def fill(match: re.Match[str]) -> str:
        return match[1] + body + match[2]

    return pattern.sub(fill, text)


def stale(write: bool = False) -> list[str]:
    """The files whose generated sections are out of date (rewritten when `write`)."""
    found = []
    for name, sections in SECTIONS.items():
        path = ROOT / name
        current = path.read_text()
        fresh = render(current, sections, name)
        if fresh != current:
            found.append(name)
            if write:
                path.write_text(fresh)
    return found


def main() -> int:
    os.environ.update(HELP_ENV)
    write = "--write" in sys.argv[1:]
    found = stale(write)
    if found and not write:
        print(
            f"out of date: {', '.join(found)}: run `python scripts/docs.py --write`",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
