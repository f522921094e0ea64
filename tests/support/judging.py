"""Judged metrics under test: a small agent whose turns have intermediate text, parallel
calls and no calls at all; its eval set with rubrics at every level; judges that answer
from the prompt alone (so ADK's evaluators and tracegrade get the same answers); and ADK's
own invocations of a tracegrade run, the oracle the parity tests compare against.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

from google.adk.agents import LlmAgent
from google.adk.evaluation.eval_case import Invocation
from google.adk.evaluation.evaluation_generator import EvaluationGenerator
from google.adk.evaluation.request_intercepter_plugin import _RequestIntercepterPlugin
from google.adk.models.registry import LLMRegistry
from google.adk.runners import InMemoryRunner
from pydantic import Field

from tracegrade.testing import ScriptedJudge, ScriptedLlm, judge_answers

USER = {
    "on": "Turn on the kitchen light.",
    "bedroom": "How warm is the bedroom?",
    "kitchen": "And the kitchen?",
    "off": "Turn off every light.",
    "help": "What can you do?",
    "who": "Who are you?",
}


def set_light(room: str, on: bool) -> dict[str, Any]:
    """Switch the light of a room on or off."""
    return {"status": "ok", "room": room, "on": on}


def get_temperature(room: str) -> dict[str, Any]:
    """A room's temperature in degrees Celsius."""
    return {"room": room, "celsius": {"bedroom": 19.5, "kitchen": 21}.get(room, 20)}


def _call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args}


def house_agent() -> LlmAgent:
    model = ScriptedLlm.by_user_text(
        {
            USER["on"]: [
                {"text": "Let me switch it on.",
                 "tool_calls": [_call("set_light", room="kitchen", on=True)]},
                {"text": "The kitchen light is now on."},
            ],
            USER["bedroom"]: [
                {"tool_calls": [_call("get_temperature", room="bedroom")]},
                {"text": "The bedroom is 19.5 °C. That is quite cosy."},
            ],
            USER["kitchen"]: [
                {"text": "Checking.", "tool_calls": [_call("get_temperature", room="kitchen")]},
                {"text": "The kitchen is 21 °C."},
            ],
            USER["off"]: [
                {"tool_calls": [_call("set_light", room="kitchen", on=False),
                                _call("set_light", room="bedroom", on=False)]},
                {"text": "All lights are off. Sleep well!"},
            ],
            USER["help"]: [{"text": "I can switch lights and read temperatures."}],
            USER["who"]: [{"text": "I run the lights and thermostats of this house."}],
        },
        model="house-model",
    )  # fmt: skip
    return LlmAgent(
        name="house_agent",
        description="Runs the lights and thermostats of a house.",
        model=model,
        instruction="Use your tools to run the house. Answer in one or two sentences.",
        tools=[set_light, get_temperature],
    )


def _rubric(rubric_id: str, text: str, kind: str | None) -> dict[str, Any]:
    rubric: dict[str, Any] = {"rubric_id": rubric_id, "rubric_content": {"text_property": text}}
    return rubric | ({"type": kind} if kind else {})


def _turn(user: str, reference: str, rubrics: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    turn: dict[str, Any] = {
        "user_content": {"role": "user", "parts": [{"text": user}]},
        "final_response": {"role": "model", "parts": [{"text": reference}]},
    }
    return turn | ({"rubrics": rubrics} if rubrics else {})


def eval_set() -> dict[str, Any]:
    """Four cases: one turn, two turns with rubrics of the case (typed and untyped) and of
    the first turn, a parallel call then a turn without tools, and a turn without tools.
    No two turns make the same judge prompt (see `disagreeing_answer`)."""
    return {
        "eval_set_id": "house",
        "eval_cases": [
            {"eval_id": "lights_on",
             "conversation": [_turn(USER["on"], "The kitchen light is on.")]},
            {
                "eval_id": "temperatures",
                "conversation": [
                    _turn(USER["bedroom"], "It is 19.5 °C in the bedroom.", [
                        _rubric("turn_units", "The answer gives a unit.", "FINAL_RESPONSE_QUALITY")
                    ]),
                    _turn(USER["kitchen"], "The kitchen is at 21 °C."),
                ],
                "rubrics": [
                    _rubric("case_tool", "Temperatures come from a tool.", "TOOL_USE_QUALITY"),
                    _rubric("case_untyped", "ADK's rubric metrics ignore it: no type.", None),
                    _rubric("case_flow", "Each question is answered.", "TRAJECTORY_QUALITY"),
                ],
            },
            {
                "eval_id": "all_off",
                "conversation": [
                    _turn(USER["off"], "Every light is off now."),
                    _turn(USER["help"], "I switch lights and read temperatures."),
                ],
            },
            {"eval_id": "who", "conversation": [_turn(USER["who"], "I can run your lights.")]},
        ],
    }  # fmt: skip


RUBRICS = {
    "final": [_rubric("concise", "The final answer is at most two sentences.", None),
              _rubric("names_room", "The answer names the room.", None)],
    "tools": [_rubric("right_tool", "The agent calls the tool that answers the request.", None)],
    "flow": [_rubric("fulfils", "The agent fulfils every request of the conversation.", None)],
}  # fmt: skip


def criteria(judge: str, *, intermediate: bool = False) -> dict[str, Any]:
    """Every ADK judge metric tracegrade runs on a judge model, with `num_samples` above 1
    (4 for ties) and rubrics from the config; `intermediate` turns on the settings that
    read the agent's intermediate text."""

    def options(samples: int) -> dict[str, Any]:
        return {"judge_model": judge, "num_samples": samples}

    return {
        "final_response_match_v2": {"threshold": 0.5, "judge_model_options": options(4),
                                    "include_intermediate_responses_in_final": intermediate},
        "rubric_based_final_response_quality_v1": {
            "threshold": 0.6, "judge_model_options": options(5), "rubrics": RUBRICS["final"],
            "include_intermediate_responses_in_final": intermediate},
        "rubric_based_tool_use_quality_v1": {
            "threshold": 0.5, "judgeModelOptions": {"judgeModel": judge, "numSamples": 3},
            "rubrics": RUBRICS["tools"]},
        "rubric_based_multi_turn_trajectory_quality_v1": {
            "threshold": 0.5, "judge_model_options": options(3), "rubrics": RUBRICS["flow"]},
        "hallucinations_v1": {"threshold": 0.7, "judge_model_options": options(1),
                              "evaluate_intermediate_nl_responses": intermediate},
    }  # fmt: skip


def _pick(seed: str, choices: list[Any]) -> Any:
    return choices[int(hashlib.sha256(seed.encode()).hexdigest()[:8], 16) % len(choices)]


FR_VOTES = [
    ["valid", "invalid", "valid", "invalid"],  # a tie: invalid
    ["valid", "valid", "garbled", "invalid"],  # valid
    ["Valid", "invalid", "garbled", "valid"],  # "Valid" is no vote: a tie, invalid
    ["invalid", "invalid", "valid", "valid"],  # a tie again
    ["valid", "garbled", "valid", "invalid"],  # valid
]
VERDICTS = ["yes", "no", "yes", "No.", "unknown", "N/A", "yes"]
LABELS = ["supported", "unsupported", "not_applicable", "contradictory", "maybe", "supported"]


def disagreeing_answer(prompt: str, sample: int) -> str | None:
    """A judge whose samples disagree, some answers unreadable, one call raising: a pure
    function of (prompt, sample), so every evaluator gets the same answers. (`sample`
    counts the judge's earlier calls with the prompt: the cases' prompts all differ, so
    it is the sample index both in ADK, one judge per case, and in tracegrade.)"""
    kind = judge_answers.kind(prompt)
    if USER["off"] in prompt and kind == "final_response_match" and sample == 1:
        raise RuntimeError("judge backend unavailable")
    if kind == "final_response_match":
        if USER["who"] in prompt:
            return "no verdict here"  # every sample unreadable: the turn is not evaluated
        vote = _pick(prompt, FR_VOTES)[sample % 4]
        return "```\ngarbled" if vote == "garbled" else judge_answers.final_response_match(vote)
    if kind == "segment":
        return judge_answers.segment(prompt) if "Sleep well" not in prompt else "no sentences"
    if kind == "validate":
        return judge_answers.validate(prompt, lambda s: _pick(s, LABELS))
    if kind == "rubrics":
        if sample == 2 and "Checking." in prompt:
            return "Verdict: yes"  # counts differ: ADK's parser reads nothing in this answer
        ids = [rid for rid, _ in judge_answers.rubric_ids(prompt)]
        return judge_answers.rubrics(
            prompt, {r: _pick(f"{prompt}{r}{sample}", VERDICTS) for r in ids}
        )
    raise AssertionError(f"unexpected judge prompt: {prompt[:80]!r}")


class DisagreeingJudge(ScriptedJudge):
    """`disagreeing_answer`, resolved by name as ADK resolves a judge."""

    NAME: ClassVar[str] = "disagreeing-judge"
    model: str = NAME
    answer: Any = disagreeing_answer

    @classmethod
    def supported_models(cls) -> list[str]:
        return [cls.NAME]


LLMRegistry.register(DisagreeingJudge)


class RecordingRunner(InMemoryRunner):
    """An InMemoryRunner that keeps, when closed, what ADK's eval makes of its sessions."""

    recorded: ClassVar[dict[str, list[Invocation]]] = {}
    """First user message of the session → ADK's invocations of it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._requests = _RequestIntercepterPlugin(name="request_intercepter")
        super().__init__(*args, plugins=[self._requests], **kwargs)

    async def close(self) -> None:
        sessions = await self.session_service.list_sessions(app_name=self.app_name)
        for listed in sessions.sessions:
            session = await self.session_service.get_session(
                app_name=self.app_name, user_id=listed.user_id, session_id=listed.id
            )
            assert session is not None
            events = list(session.events)
            details = EvaluationGenerator._get_app_details_by_invocation_id(events, self._requests)
            invocations = EvaluationGenerator.convert_events_to_eval_invocations(events, details)
            first = invocations[0].user_content.parts[0].text  # type: ignore[index]
            self.recorded[str(first)] = invocations
        await super().close()


@contextmanager
def recording_adk_invocations(monkeypatch: Any) -> Iterator[dict[str, list[Invocation]]]:
    """While the block runs, tracegrade's replays also record ADK's own invocations."""
    from tracegrade.harness import replay

    RecordingRunner.recorded = {}
    monkeypatch.setattr(replay, "InMemoryRunner", RecordingRunner)
    yield RecordingRunner.recorded


def write_case_files(folder: Path, config: dict[str, Any]) -> tuple[Path, Path]:
    evalset = folder / "house.evalset.json"
    evalset.write_text(json.dumps(eval_set(), indent=2))
    config_path = folder / "test_config.json"
    config_path.write_text(json.dumps(config, indent=2))
    return evalset, config_path


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


root_agent = house_agent()
AGENT = "tests.support.judging"


def scenario_invocations(
    agent: Any, turns: tuple[str, ...], raises: bool = False, session: str = "s"
) -> list[Invocation]:
    """Run the turns in one session (spans go wherever the test captures them) and return
    ADK eval's invocations of the session, app details included."""
    from google.genai import types

    async def go() -> list[Invocation]:
        runner = RecordingRunner(agent=agent, app_name="probe")
        await runner.session_service.create_session(
            app_name="probe", user_id="u", session_id=session
        )
        for text in turns:
            message = types.Content(role="user", parts=[types.Part(text=text)])
            try:
                run = runner.run_async(user_id="u", session_id=session, new_message=message)
                async for _ in run:
                    pass
            except Exception:
                if not raises:
                    raise
        await runner.close()
        return RecordingRunner.recorded[turns[0]]

    RecordingRunner.recorded = {}
    return asyncio.run(go())


class SwitchJudge(ScriptedJudge):
    """A judge whose answers each test chooses: `SwitchJudge.answers` (reset per test by
    the `switch_judge` fixture), resolved by name like any registered model."""

    NAME: ClassVar[str] = "switch-judge"
    answers: ClassVar[Any] = staticmethod(judge_answers.auto)
    instances: ClassVar[list[ScriptedJudge]] = []
    model: str = NAME
    answer: Any = None
    usage: dict[str, int] | None = Field(default_factory=lambda: {"input": 1000, "output": 100})

    def model_post_init(self, context: Any) -> None:
        self.answer = lambda prompt, sample: SwitchJudge.answers(prompt, sample)
        SwitchJudge.instances.append(self)

    @classmethod
    def supported_models(cls) -> list[str]:
        return [cls.NAME]

    @classmethod
    def call_count(cls) -> int:
        return sum(len(judge.calls) for judge in cls.instances)


LLMRegistry.register(SwitchJudge)


def run_house(tmp_path: Path) -> str:
    """Replay the house eval set once; its run id."""
    from tracegrade.harness import RunOptions, run_eval

    evalset = tmp_path / "house.evalset.json"
    evalset.write_text(json.dumps(eval_set()))
    return run_eval(RunOptions(eval_sets=[str(evalset)], agent=AGENT)).run_id
