"""Judges of your own: a jinja2 prompt template beside a SQL scorer.

A scorer file whose header says `-- judge: name.prompt` is judged: for each turn (or, with
`-- rates: conversation`, once per conversation, at its last turn) the template is rendered
with what the turn holds (`template_context`) and sent to the judge model named in the
metric's criterion (`judge_model_options`, as ADK's judges take it), `num_samples` times.
A template that renders to whitespace means there is nothing to judge in that turn. The
answers land in `scored_judgements` (the JSON an answer holds, in `verdicts`) for the SQL
scorer to read. tracegrade's `task_completion` and `tool_argument_grounding` are made so.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from tracegrade.errors import ConfigError
from tracegrade.scoring.judging.invocations import actual_invocation
from tracegrade.scoring.judging.turns import TurnData

TASK_RUBRIC_TYPE = "TASK"


@dataclass(frozen=True)
class PromptTemplate:
    path: Path
    template: jinja2.Template

    def render(self, context: dict[str, Any]) -> str:
        try:
            return self.template.render(context)
        except jinja2.TemplateError as exc:
            raise ConfigError(f"judge template {self.path}: {exc}") from None


def load_template(path: Path) -> PromptTemplate:
    if not path.is_file():
        raise ConfigError(f"judge template {path} does not exist")
    environment = jinja2.Environment(
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False
    )
    environment.filters["json"] = _json
    try:
        return PromptTemplate(path, environment.from_string(path.read_text()))
    except jinja2.TemplateSyntaxError as exc:
        raise ConfigError(f"judge template {path}, line {exc.lineno}: {exc.message}") from None


def _json(value: Any, indent: int | None = 2) -> str:
    return json.dumps(value, indent=indent, ensure_ascii=False, default=str)


def template_context(
    turns: Sequence[TurnData], options: dict[str, Any], rubrics: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    """What a template sees, for the last of `turns` (the ones before are the conversation
    so far): documented in docs/metrics.md."""
    *before, turn = turns
    extras = {k: v for k, v in options.items() if k not in ("threshold", "judge_model_options")}
    return {
        **turn_view(turn),
        "conversation": [turn_view(t) for t in before],
        "turns": [turn_view(t) for t in turns],
        "agents": _agents(turn),
        "rubrics": [_rubric(r) for r in rubrics],
        "tasks": _tasks(options, rubrics),
        "options": extras,
    }


def turn_view(turn: TurnData) -> dict[str, Any]:
    """One turn as templates see it."""
    expected = turn.expected
    return {
        "turn_id": turn.turn_id,
        "user_text": turn.user_text or "",
        "final_text": turn.final_text or "",
        "reference_text": expected.final_text if expected else None,
        "intermediate_texts": _intermediate_texts(turn),
        "tool_calls": [
            {
                "seq": c.seq,
                "name": c.name,
                "args": c.args,
                "result": c.result,
                "error": c.error_message if c.is_error else None,
            }
            for c in turn.tool_calls
        ],
    }


def _intermediate_texts(turn: TurnData) -> list[str]:
    events = actual_invocation(turn).intermediate_data
    texts = []
    for event in getattr(events, "invocation_events", None) or []:
        parts = event.content.parts if event.content else None
        text = "\n".join(p.text for p in parts or [] if p.text)
        if text:
            texts.append(text)
    return texts


def _agents(turn: TurnData) -> list[dict[str, Any]]:
    details = actual_invocation(turn).app_details
    agents = []
    for name, agent in (details.agent_details if details else {}).items():
        tools = [
            {"name": f.name, "description": f.description}
            for tool in agent.tool_declarations
            for f in tool.function_declarations or []
        ]
        agents.append({"name": name, "instructions": agent.instructions, "tools": tools})
    return agents


def _rubric(rubric: dict[str, Any]) -> dict[str, Any]:
    content = rubric.get("rubric_content") or {}
    return {"id": rubric.get("rubric_id"), "text": content.get("text_property"),
            "type": rubric.get("type")}  # fmt: skip


def _tasks(options: dict[str, Any], rubrics: Sequence[dict[str, Any]]) -> list[str]:
    """The criterion's `tasks`, then the eval case's rubrics of type TASK."""
    given = [str(t) for t in options.get("tasks") or []]
    typed = [_rubric(r)["text"] for r in rubrics if r.get("type") == TASK_RUBRIC_TYPE]
    return given + [str(t) for t in typed if t]
