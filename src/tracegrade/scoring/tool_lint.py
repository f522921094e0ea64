"""`tracegrade lint-tools`: tool definitions audited for what invites wrong calls.

The rules follow the name and description checks of Dokimos' tool evaluators, on the
definitions a model is given (`{name, description, parameters}` per agent, from an agent
read without running it, or from the stored `tool_definitions` view):

    error    name-format             names are snake_case: a-z, 0-9 and _, starting with a letter
    error    name-too-long           names longer than 64 characters (Gemini refuses them)
    warning  name-long               names longer than 32 characters
    warning  name-verb-first         names start with a verb (get_, set_, list_...), so the
                                     model reads what the call does
    error    name-duplicate          two tools of one agent share a name
    warning  name-confusable         two names differ only by case, _ or one character
    error    description-missing     every tool says what it does
    warning  description-short       descriptions under 4 words
    error    description-duplicate   two tools of one agent share a description
    error    parameter-untyped       every parameter (nested ones too) has a type
    warning  parameter-undescribed   every parameter is described (in its schema, or in the
                                     tool description's `Args:` section, as ADK passes a
                                     function's docstring on)
    warning  parameter-enum-missing  a parameter whose description lists its values ('ON' or
                                     'OFF', one of ...) declares them as an enum
    error    required-unknown        `required` names only declared parameters
    warning  required-duplicate      `required` names each parameter once

Schemas in google-genai's OpenAPI-style dialect are converted first. A finding is one line:
severity, agent, tool, parameter (or -), rule and message.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from tracegrade.store.reader import Reader
from tracegrade.store.tool_schema import to_json_schema

_SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")
_LISTS_VALUES = re.compile(r"""(['"]\w+['"]\s*(,|or)\s*['"]\w+['"])|\bone of\b""", re.I)
_VERB_WORDS = (
    "get set list create update delete remove add search find fetch send check book cancel "
    "convert calculate compute count lookup look read write run start stop open close turn "
    "switch move schedule query load save upload download generate validate transfer "
    "summarize translate describe show play pause call post reply notify order pay refund "
    "reserve buy sell track analyze explain answer ask compare filter sort format parse "
    "extract resolve assign approve reject submit sync reset enable disable dim lock unlock "
    "apply estimate predict plan rank recommend register verify confirm retrieve browse "
    "navigate execute invoke make build deploy test lint clear copy rename merge split "
    "draft edit review publish share subscribe unsubscribe mark flag archive restore "
    "escalate route exit handle process import export "
)
VERBS = frozenset(_VERB_WORDS.split())


@dataclass(frozen=True)
class Finding:
    severity: str  # error | warning
    agent: str
    tool: str
    parameter: str | None
    rule: str
    message: str

    def line(self) -> str:
        where = f"{self.agent} {self.tool} {self.parameter or '-'}"
        return f"{self.severity:<7} {where}  {self.rule}: {self.message}"


Definitions = Mapping[str, Sequence[Mapping[str, Any]]]
"""Per agent name, its tools' definitions: {name, description, parameters}."""


def lint(definitions: Definitions) -> list[Finding]:
    """Every finding, agent by agent, tool by tool."""
    found: list[Finding] = []
    for agent, tools in definitions.items():
        found.extend(_agent_findings(agent, tools))
        for tool in tools:
            found.extend(_tool_findings(agent, tool))
    return found


def _agent_findings(agent: str, tools: Sequence[Mapping[str, Any]]) -> Iterator[Finding]:
    names = [str(t.get("name") or "") for t in tools]
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if a == b:
                yield Finding("error", agent, a, None, "name-duplicate", "two tools share it")
            elif _confusable(a, b):
                yield Finding("warning", agent, a, None, "name-confusable", f"too like {b}")
    seen: dict[str, str] = {}
    for name, tool in zip(names, tools, strict=True):
        text = (tool.get("description") or "").strip()
        if text and text in seen:
            message = f"the same as {seen[text]}'s"
            yield Finding("error", agent, name, None, "description-duplicate", message)
        seen.setdefault(text, name)


def _confusable(a: str, b: str) -> bool:
    """Equal but for case and _, or one slip apart with the same verb (get_x / set_x are
    a pair, not a slip)."""
    if a.lower().replace("_", "") == b.lower().replace("_", ""):
        return True
    same_verb = a.split("_")[0] == b.split("_")[0]
    return same_verb and min(len(a), len(b)) > 4 and SequenceMatcher(None, a, b).ratio() > 0.9


def _tool_findings(agent: str, tool: Mapping[str, Any]) -> Iterator[Finding]:
    name = str(tool.get("name") or "")

    def finding(severity: str, rule: str, message: str, parameter: str | None = None) -> Finding:
        return Finding(severity, agent, name, parameter, rule, message)

    if not _SNAKE.match(name):
        yield finding("error", "name-format", "use snake_case: a-z, 0-9 and _")
    if len(name) > 64:
        yield finding("error", "name-too-long", f"{len(name)} characters; models take 64 at most")
    elif len(name) > 32:
        yield finding("warning", "name-long", f"{len(name)} characters; keep it under 32")
    if name.split("_")[0].lower() not in VERBS:
        yield finding("warning", "name-verb-first", "start with a verb: get_, set_, list_...")
    description = (tool.get("description") or "").strip()
    if not description:
        yield finding("error", "description-missing", "say what the tool does and when to use it")
    elif len(description.split()) < 4:
        yield finding("warning", "description-short", f"{description!r} says too little")
    parameters = tool.get("parameters")
    if isinstance(parameters, Mapping):
        schema = to_json_schema(parameters)
        for parameter, rule, severity, message in _schema_findings(schema, "", description):
            yield finding(severity, rule, message, parameter)


def _schema_findings(
    schema: Mapping[str, Any], path: str, tool_description: str
) -> Iterator[tuple[str, ...]]:
    properties = schema.get("properties") or {}
    required = list(schema.get("required") or [])
    for extra in sorted(set(required) - set(properties)):
        yield _join(path, extra), "required-unknown", "error", "required but not declared"
    for twice in sorted({r for r in required if required.count(r) > 1}):
        yield _join(path, twice), "required-duplicate", "warning", "listed twice in required"
    for key, sub in properties.items():
        if isinstance(sub, Mapping):
            described = str(sub.get("description") or "") or _documented(tool_description, key)
            yield from _parameter_findings(_join(path, key), sub, described)


def _documented(tool_description: str, parameter: str) -> str:
    """What the tool's description says of a parameter in a docstring's `Args:` section
    (`name: text` or `name (type): text`, as ADK passes a function's docstring on)."""
    pattern = rf"^\s*{re.escape(parameter)}\s*(\([^)]*\))?\s*:\s*(.+)$"
    match = re.search(pattern, tool_description, re.M)
    return match[2] if match else ""


def _parameter_findings(
    where: str, schema: Mapping[str, Any], description: str
) -> Iterator[tuple[str, ...]]:
    typed = any(k in schema for k in ("type", "anyOf", "oneOf", "allOf", "$ref", "enum", "const"))
    if not typed:
        yield where, "parameter-untyped", "error", "declare its type"
    if not description:
        yield where, "parameter-undescribed", "warning", "describe what it takes"
    elif "enum" not in schema and _closed_set(description):
        yield where, "parameter-enum-missing", "warning", "its values are a closed set: use enum"
    if schema.get("type") == "object" or "properties" in schema:
        yield from _schema_findings(schema, where, "")
    items = schema.get("items")
    if isinstance(items, Mapping) and ("properties" in items or items.get("type") == "object"):
        yield from _schema_findings(items, f"{where}[]", "")


def _closed_set(description: str) -> bool:
    """The description lists the values ('ON' or 'OFF'), not examples (such as 'Kitchen')."""
    examples = re.search(r"\bsuch as\b|\be\.g\.|\bfor example\b|\blike\b", description, re.I)
    return not examples and bool(_LISTS_VALUES.search(description))


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def agent_definitions(reference: str) -> dict[str, list[dict[str, Any]]]:
    """The definitions of an agent named as `tracegrade run` takes it, read without running it."""
    from tracegrade.harness.agents import load_agent
    from tracegrade.harness.tools import agent_tool_definitions

    return agent_tool_definitions(load_agent(reference))


_LATEST = """
    SELECT agent_name, name, description, parameters
    FROM tool_definitions
    QUALIFY row_number() OVER (
        PARTITION BY agent_name, name ORDER BY parameters IS NULL, last_seen DESC) = 1
    ORDER BY agent_name, name
"""


def stored_definitions(reader: Reader) -> dict[str, list[dict[str, Any]]]:
    """Each agent's tools as last seen in the database (with a recorded schema if any)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for agent, name, description, parameters in reader.query(_LATEST)[1]:
        schema = json.loads(parameters) if parameters else None
        found.setdefault(agent or "(unknown agent)", []).append(
            {"name": name, "description": description, "parameters": schema}
        )
    return found
