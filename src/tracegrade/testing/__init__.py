"""Deterministic models for testing agents, scorers and judges without an API key."""

from tracegrade.testing import judge_answers
from tracegrade.testing.script import Script, ScriptedResponse, load_script
from tracegrade.testing.scripted_judge import JudgeCall, ScriptedJudge
from tracegrade.testing.scripted_llm import ScriptedLlm
from tracegrade.testing.scripted_user import ScriptedUser, UserCall

__all__ = [
    "JudgeCall",
    "Script",
    "ScriptedJudge",
    "ScriptedLlm",
    "ScriptedResponse",
    "ScriptedUser",
    "UserCall",
    "judge_answers",
    "load_script",
]
