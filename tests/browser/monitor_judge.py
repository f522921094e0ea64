"""The scripted judge of the monitor's browser tests, registered under `monitor-judge`:
hallucinations_v1's validator calls a sentence about a discount unsupported, with a
rationale the turn page must show; every other answer is judge_answers.auto's."""

from __future__ import annotations

from typing import ClassVar

from google.adk.models.registry import LLMRegistry

from tracegrade.testing import judge_answers
from tracegrade.testing.scripted_judge import ScriptedJudge

RATIONALE = "No tool result mentions a discount."


def answer(prompt: str, sample: int) -> str:
    if judge_answers.kind(prompt) == "validate":
        return judge_answers.validate(
            prompt, lambda s: ("unsupported", RATIONALE) if "discount" in s else "supported"
        )
    return judge_answers.auto(prompt, sample)


class MonitorJudge(ScriptedJudge):
    NAME: ClassVar[str] = "monitor-judge"
    model: str = NAME
    answer: object = answer

    @classmethod
    def supported_models(cls) -> list[str]:
        return [cls.NAME]


LLMRegistry.register(MonitorJudge)
