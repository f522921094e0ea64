"""The judge the `score --evalset` tests' criteria name (`tests.cli.evalset_agent.judge:JUDGE`):
it finds a response valid unless the prompt holds the kitchen case's reference, so that
a scoring reaching the judge without a case's reference would score differently."""

from __future__ import annotations

from tracegrade.testing import ScriptedJudge, judge_answers

KITCHEN_REFERENCE = "The kitchen is now at 24 degrees."

JUDGE = ScriptedJudge(
    answer=lambda prompt, sample: judge_answers.final_response_match(
        KITCHEN_REFERENCE not in prompt
    )
)
