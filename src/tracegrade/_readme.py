"""The README's generated sections: the data model, the CLI's --help, the exit codes.

    python -m tracegrade._readme           check README.md is current (exit 1 if not)
    python -m tracegrade._readme --write   rewrite its generated sections

Each section sits between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
COMMANDS = [
    "run",
    "score",
    "report",
    "diff",
    "runs",
    "sql",
    "ingest",
    "serve",
    "export-evalset",
    "db path",
    "db upgrade",
]


def schema() -> str:
    from tracegrade.store import connect
    from tracegrade.store.schema_docs import relations

    parts = []
    for relation in relations(connect(":memory:")):
        rows = "\n".join(f"| `{c.name}` | {c.type} | {c.doc} |" for c in relation.columns)
        doc = relation.doc[0].upper() + relation.doc[1:]
        parts.append(
            f"#### `{relation.name}` ({relation.kind})\n\n{doc}\n\n"
            f"| column | type | meaning |\n| --- | --- | --- |\n{rows}\n"
        )
    return "\n".join(parts)


def cli_help() -> str:
    from typer.testing import CliRunner

    from tracegrade.cli.main import app

    runner = CliRunner()
    blocks = []
    for command in COMMANDS:
        env = {"COLUMNS": "100", "NO_COLOR": "1", "TERM": "dumb"}
        result = runner.invoke(app, [*command.split(), "--help"], env=env)
        text = "\n".join(line.rstrip() for line in result.output.splitlines()).strip("\n")
        summary = f"<summary><code>tracegrade {command}</code></summary>"
        blocks.append(f"<details>{summary}\n\n```text\n{text}\n```\n</details>\n")
    return "\n".join(blocks)


def exit_codes() -> str:
    import ast
    import inspect

    from tracegrade import exit_codes as module

    docs: dict[str, str] = {}
    body = ast.parse(inspect.getsource(module)).body
    enum = next(node for node in body if isinstance(node, ast.ClassDef))
    for node, after in zip(enum.body, [*enum.body[1:], None], strict=True):
        if isinstance(node, ast.Assign) and isinstance(after, ast.Expr):
            docs[node.targets[0].id] = str(after.value.value)  # type: ignore[attr-defined]
    rows = "\n".join(
        f"| {code.value} | `{code.name}` | {docs.get(code.name, '')} |" for code in module.ExitCode
    )
    return f"| code | name | meaning |\n| --- | --- | --- |\n{rows}\n"


SECTIONS: dict[str, Callable[[], str]] = {
    "schema": schema,
    "cli": cli_help,
    "exit-codes": exit_codes,
}


def render(text: str) -> str:
    for name, make in SECTIONS.items():
        pattern = re.compile(rf"(<!-- generated:{name} -->\n).*?(<!-- /generated:{name} -->)", re.S)
        if not pattern.search(text):
            raise SystemExit(f"README.md has no <!-- generated:{name} --> section")
        text = _replace_section(pattern, make().rstrip("\n") + "\n", text)
    return text


def _replace_section(pattern: re.Pattern[str], body: str, text: str) -> str:
    def fill(match: re.Match[str]) -> str:
        return match[1] + body + match[2]

    return pattern.sub(fill, text)


def main() -> int:
    os.environ.setdefault("COLUMNS", "100")
    current = README.read_text()
    fresh = render(current)
    if "--write" in sys.argv:
        README.write_text(fresh)
        return 0
    if fresh != current:
        print(
            "README.md is out of date: run `python -m tracegrade._readme --write`", file=sys.stderr
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
