"""Reading judge answers where ADK has no public parser to call.

ADK's rubric and final-response judges parse through their evaluators' public
`convert_auto_rater_response_to_score`, which tracegrade calls. `hallucinations_v1` parses
in private module functions, so its validator's answer is read here the same way
(tests/scoring/judging/test_parse.py holds these to ADK's `_parse_validation_results` and
`_parse_sentences`). The judges whose scorers are plain SQL answer in JSON: `json_answer`
finds it in the answer text.
"""

from __future__ import annotations

import json
import re
import statistics
from typing import Any

# hallucinations_v1.py: the blocks of the validator's answer, and the labels that count.
_VALIDATION_BLOCK = re.compile(
    r"sentence:(.*?)\nlabel:(.*?)\nrationale:(.*?)\nsupporting_excerpt:(.*?)"
    r"\ncontradicting_excerpt:(.*?)(?=\nsentence:|\Z)",
    re.DOTALL | re.IGNORECASE,
)
_SENTENCE = re.compile(r"<sentence>(.*?)</sentence>", re.DOTALL)
POSITIVE_LABELS = frozenset({"supported", "not_applicable"})
NEGATIVE_LABELS = frozenset({"unsupported", "contradictory", "disputed"})

_REASONING = re.compile(r'"reasoning"\s*:\s*"((?:[^"\\]|\\.)*)"', re.DOTALL)
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


def sentences(text: str | None) -> list[str]:
    """The sentences a hallucinations segmenter answer lists."""
    return _SENTENCE.findall(text or "")


def validation(text: str | None) -> tuple[float | None, list[dict[str, Any]]]:
    """A hallucinations validator answer: the share of supported (or not applicable)
    sentences among those with a known label, and each sentence's verdict."""
    verdicts: list[dict[str, Any]] = []
    scores: list[float] = []
    for match in _VALIDATION_BLOCK.finditer((text or "").strip()):
        sentence, label, rationale = (g.strip() for g in match.groups()[:3])
        score = _label_score(label)
        verdicts.append(
            {"sentence": sentence, "label": label, "score": score, "rationale": rationale}
        )
        if score is not None:
            scores.append(score)
    return (statistics.mean(scores) if scores else None), verdicts


def _label_score(label: str) -> float | None:
    label = label.strip().lower()
    if label in POSITIVE_LABELS:
        return 1.0
    return 0.0 if label in NEGATIVE_LABELS else None


def reasoning(text: str | None) -> str | None:
    """The `"reasoning"` a final_response_match_v2 judge writes before its label."""
    match = _REASONING.search(text or "")
    if match is None:
        return None
    try:
        return str(json.loads(f'"{match[1]}"'))
    except ValueError:
        return match[1]


def json_answer(text: str | None) -> Any:
    """The JSON object (or array) an answer holds, fenced in ``` or bare; None if none."""
    if not text:
        return None
    candidates = [*_FENCE.findall(text), text]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        for start, char in enumerate(candidate):
            if char in "{[":
                try:
                    return decoder.raw_decode(candidate[start:])[0]
                except ValueError:
                    continue
    return None
