"""Judge answers in the formats the judges parse, made from the prompt they answer.

auto(prompt)                       a "yes"/"valid"/"supported" answer to any judge prompt
final_response_match(valid)        final_response_match_v2
rubrics(prompt, {"id": "no"})      the rubric metrics (single- and multi-turn)
segment(prompt)                    hallucinations_v1, step 1: the response's sentences
validate(prompt, {"sentence": "contradictory"})   hallucinations_v1, step 2
verdicts(prompt, ...)              tracegrade's JSON judges (task_completion, grounding)
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping

_RUBRIC_LINE = re.compile(r"^\*\s+\[id: (?P<id>[^\]]+)\] (?P<text>.*)$", re.M)
_SENTENCE = re.compile(r"<sentence>(.*?)</sentence>", re.S)
_ITEMS = re.compile(r"<items>\s*(.*?)\s*</items>", re.S)

Label = str | tuple[str, str]
"""A label, or (label, rationale)."""
Labels = Mapping[str, Label] | Callable[[str], Label]


def kind(prompt: str) -> str:
    """Which judge wrote the prompt."""
    if '"is_the_agent_response_valid"' in prompt:
        return "final_response_match"
    if "# Generated User Response" in prompt:
        return "user_simulator"
    if "**Sentences Begin**" in prompt:
        return "validate"
    if "**Response Begin**" in prompt:
        return "segment"
    if "<properties>" in prompt:
        return "rubrics"
    if _ITEMS.search(prompt):
        return "verdicts"
    return "unknown"


def auto(prompt: str, sample: int = 0) -> str:
    """The most favourable answer, in the format the prompt asks for."""
    answers: dict[str, Callable[[str], str]] = {
        "final_response_match": lambda p: final_response_match(True),
        "user_simulator": lambda p: user_simulator(True),
        "validate": lambda p: validate(p, {}),
        "segment": segment,
        "rubrics": lambda p: rubrics(p, {}),
        "verdicts": lambda p: verdicts(p, {}),
    }
    which = kind(prompt)
    if which not in answers:
        raise ValueError("judge_answers.auto: no judge format found in the prompt")
    return answers[which](prompt)


def final_response_match(valid: bool | str, reasoning: str = "Scripted.") -> str:
    label = valid if isinstance(valid, str) else ("valid" if valid else "invalid")
    return json.dumps({"reasoning": reasoning, "is_the_agent_response_valid": label}, indent=2)


def user_simulator(valid: bool | str, reasoning: str = "Scripted.") -> str:
    """An answer of per_turn_user_simulator_quality_v1's judge: did the simulated user's
    message follow the conversation plan?"""
    return json.dumps({"reasoning": reasoning, "is_valid": valid}, indent=2)


def generated_user_response(prompt: str) -> str:
    """The simulated user's message a per_turn_user_simulator_quality_v1 prompt asks about."""
    return prompt.rsplit("# Generated User Response", 1)[-1].strip()


def rubric_ids(prompt: str) -> list[tuple[str, str]]:
    """The rubrics a rubric prompt lists: (id, text)."""
    tail = prompt[prompt.rfind("<properties>") + len("<properties>") :]
    tail = tail[: tail.find("</properties>")] if "</properties>" in tail else tail
    if tail.strip().startswith("["):  # the multi-turn judge lists them as JSON
        return [(r["id"], r["property"]) for r in json.loads(tail)]
    return [(m["id"], m["text"].strip()) for m in _RUBRIC_LINE.finditer(tail)]


def rubrics(prompt: str, verdicts: Mapping[str, str], default: str = "yes") -> str:
    """A verdict for every rubric in the prompt: `verdicts` by rubric id, else `default`."""
    blocks = [
        f"ID: {rid}\nProperty: {text}\nEvidence: scripted\n"
        f"Rationale: scripted: {verdicts.get(rid, default)} for {rid}\n"
        f"Verdict: {verdicts.get(rid, default)}"
        for rid, text in rubric_ids(prompt)
    ]
    return "\n\n".join(blocks)


def segment(prompt: str) -> str:
    """The response between the markers, split after each . ! or ?"""
    body = prompt.split("**Response Begin**")[-1].split("**Response End**")[0].strip()
    parts = [s.strip() for s in re.split(r"(?<=[.!?])\s+", body) if s.strip()]
    return "\n".join(f"<sentence>{s}</sentence>" for s in parts)


def validate(prompt: str, labels: Labels, default: str = "supported") -> str:
    """A label for every sentence to check: `labels` by sentence (a label, or a label and
    its rationale), else `default`."""
    body = prompt.split("**Sentences Begin**")[-1].split("**Sentences End**")[0]
    blocks = []
    for sentence in _SENTENCE.findall(body):
        given = labels(sentence) if callable(labels) else labels.get(sentence, default)
        label, rationale = given if isinstance(given, tuple) else (given, f"scripted: {given}")
        blocks.append(
            f"sentence: {sentence}\nlabel: {label}\nrationale: {rationale}\n"
            "supporting_excerpt: null\ncontradicting_excerpt: null"
        )
    return "\n".join(blocks)


def items(prompt: str) -> list[dict[str, object]]:
    """What a tracegrade JSON judge asks about (its prompt's <items> list)."""
    found = _ITEMS.search(prompt)
    return list(json.loads(found[1])) if found else []


def verdicts(prompt: str, by_key: Mapping[str, str], default: str = "yes") -> str:
    """A JSON verdict for every item of a tracegrade judge's prompt: `by_key` by item key."""
    answers = [
        {"key": item["key"], "verdict": by_key.get(str(item["key"]), default),
         "rationale": f"scripted: {by_key.get(str(item['key']), default)}"}
        for item in items(prompt)
    ]  # fmt: skip
    return "```json\n" + json.dumps({"verdicts": answers}, indent=2) + "\n```"
