"""A judge is any ADK model: a name ADK's LLMRegistry resolves (Gemini names, classes a
module registers), or `package.module:attr` naming a BaseLlm; anything else is one line
saying how to make it known."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.adk.models.google_llm import Gemini

from tests.support.judging import SwitchJudge
from tracegrade.errors import ConfigError
from tracegrade.scoring.judging.resolve import import_judge_modules, resolve_judge
from tracegrade.testing import ScriptedJudge

# A BaseLlm instance to name as tests.scoring.judging.test_resolve:JUDGE.
JUDGE = ScriptedJudge(model="module-judge", answer=lambda prompt, sample: "ok")


def test_names_resolve_as_adk_resolves_them() -> None:
    gemini = resolve_judge("gemini-2.5-flash")
    assert isinstance(gemini.llm, Gemini)
    assert (gemini.name, gemini.model) == ("gemini-2.5-flash", "gemini-2.5-flash")
    assert isinstance(resolve_judge(SwitchJudge.NAME).llm, SwitchJudge)  # registered by a module


def test_a_module_attribute_names_an_instance() -> None:
    judge = resolve_judge("tests.scoring.judging.test_resolve:JUDGE")
    assert judge.llm is JUDGE
    assert (judge.name, judge.model) == ("tests.scoring.judging.test_resolve:JUDGE", "module-judge")


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("my-judge-9000", "judge model 'my-judge-9000': Model my-judge-9000 not found"),
        ("tests.scoring.judging.test_resolve:NOPE", "test_resolve has no 'NOPE'"),
        ("tests.scoring.judging.test_resolve:Path", "Path is a type, not a google-adk BaseLlm"),
    ],
)
def test_an_unknown_judge_says_how_to_make_it_known(name: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        resolve_judge(name)
    assert "\n" not in str(caught.value)


def test_judge_imports_register_the_classes_they_define(tmp_path: Path) -> None:
    module = tmp_path / "my_judges.py"
    module.write_text(
        "from google.adk.models.registry import LLMRegistry\n"
        "from tracegrade.testing import ScriptedJudge\n"
        "class TeamJudge(ScriptedJudge):\n"
        "    answer: object = lambda prompt, sample: 'ok'\n"
        "    @classmethod\n"
        "    def supported_models(cls):\n"
        "        return ['team-judge-.*']\n"
        "LLMRegistry.register(TeamJudge)\n"
    )
    with pytest.raises(ConfigError):
        resolve_judge("team-judge-1")
    import_judge_modules([str(module)])
    assert type(resolve_judge("team-judge-1").llm).__name__ == "TeamJudge"
    with pytest.raises(ConfigError, match="cannot import 'no_such_module_here'"):
        import_judge_modules(["no_such_module_here"])
