"""Deterministic models for testing agents and scorers without an API key."""

from tracegrade.testing.script import Script, ScriptedResponse, load_script
from tracegrade.testing.scripted_llm import ScriptedLlm

__all__ = ["Script", "ScriptedLlm", "ScriptedResponse", "load_script"]
