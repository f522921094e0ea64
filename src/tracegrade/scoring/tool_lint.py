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
    "navigate execute invoke make build deploy test lint clear copy rename merge split draft "
    "edit review publish share subscribe unsubscribe mark flag archive restore escalate route "
    "exit handle process import export name error warning description error _ _ _ _ name "
    "error error warning _ warning description error warning parameters properties required "
)
VERBS = frozenset(_VERB_WORDS.split())
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
