"""ADK's user simulator as tracegrade runs it: its config read as ADK reads it, one
simulator per case repeat, and its model calls counted apart from the agent's.

`test_config.json`'s `user_simulator_config` is validated by ADK's own `EvalConfig`, and
`UserSimulatorProvider` builds the simulator (`LlmBackedUserSimulator`, personas
included), so a scenario plays as under `adk eval`. Two things tracegrade adds:

- the simulator's model is wrapped (`CountingLlm`) so its calls, tokens and latency are
  recorded on a `tracegrade.user_simulator` span, never on the agent's turn;
- each repeat gets its own seed (`model_configuration.seed`, the configured one or 0, plus
  the repeat): repeats are independent conversations, and a model that honours the seed
  (Gemini; `ScriptedUser`) plays the same conversation for the same repeat again.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any

from google.adk.errors.not_found_error import NotFoundError
from google.adk.evaluation.conversation_scenarios import ConversationScenario
from google.adk.evaluation.eval_case import EvalCase
from google.adk.evaluation.eval_config import EvalConfig
from google.adk.evaluation.simulation.llm_backed_user_simulator import (
    LlmBackedUserSimulatorConfig,
)
from google.adk.evaluation.simulation.user_simulator import UserSimulator
from google.adk.evaluation.simulation.user_simulator_provider import UserSimulatorProvider
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from pydantic import PrivateAttr, ValidationError

from tracegrade.errors import ConfigError, EvalSetError
from tracegrade.evalset import Case
from tracegrade.harness.experimental import quiet_experimental

CONFIG_KEYS = ("user_simulator_config", "userSimulatorConfig")
STOP_SIGNAL = "</finished>"
"""What ADK's LLM-backed simulator says to end the conversation (hard-coded in ADK)."""


def simulator_config(criteria: dict[str, Any]) -> LlmBackedUserSimulatorConfig:
    """The simulator settings of a criteria document (`test_config.json`), as ADK reads
    them; ADK's defaults when it has none."""
    present = {k: criteria[k] for k in CONFIG_KEYS if criteria.get(k) is not None}
    try:
        config = EvalConfig.model_validate(present).user_simulator_config
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"] if not str(p).startswith("function"))
        raise ConfigError(f"{where or 'user_simulator_config'}: {error['msg']}") from None
    if config is None:
        return LlmBackedUserSimulatorConfig()
    if not isinstance(config, LlmBackedUserSimulatorConfig):
        raise ConfigError(
            f"user_simulator_config.type: '{config.type}' is not supported by tracegrade "
            "(only llm_backed: the simulated user's text is what a turn records)"
        )
    return config


def adk_scenario(case: Case) -> ConversationScenario:
    """The case's scenario as ADK's model (a prebuilt persona id resolved by ADK)."""
    assert case.scenario is not None
    scenario = case.scenario
    try:
        with quiet_experimental():
            return ConversationScenario.model_validate(
                {
                    "starting_prompt": scenario.starting_prompt,
                    "conversation_plan": scenario.conversation_plan,
                    "user_persona": scenario.user_persona,
                }
            )
    except (ValidationError, ValueError, NotFoundError) as exc:
        raise EvalSetError(
            f"eval set '{case.eval_set_id}' case '{case.case_id}': "
            f"conversation_scenario.user_persona: {_first_line(exc)}"
        ) from None


@dataclass
class Usage:
    """The simulator model's calls since the last `take()`."""

    calls: int = 0
    input_tokens: int | None = None
    output_tokens: int | None = None
    model: str | None = None

    def add(self, response: LlmResponse, model: str) -> None:
        self.model = response.model_version or model
        usage = response.usage_metadata
        if usage is None:
            return
        if usage.prompt_token_count is not None:
            self.input_tokens = (self.input_tokens or 0) + usage.prompt_token_count
        output = (usage.candidates_token_count or 0) + (usage.thoughts_token_count or 0)
        if usage.candidates_token_count is not None or usage.thoughts_token_count is not None:
            self.output_tokens = (self.output_tokens or 0) + output


class CountingLlm(BaseLlm):
    """Forwards to the simulator's own model, counting calls and tokens."""

    inner: BaseLlm
    _usage: Usage = PrivateAttr(default_factory=Usage)

    def take(self) -> Usage:
        """What was used since the last take."""
        usage, self._usage = self._usage, Usage()
        return usage

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self._usage.calls += 1
        async for response in self.inner.generate_content_async(llm_request, stream):
            self._usage.add(response, self.inner.model)
            yield response


def build_simulator(
    config: LlmBackedUserSimulatorConfig, case: Case, repeat: int
) -> tuple[UserSimulator, CountingLlm]:
    """ADK's simulator for one repeat of a scenario case, its seed set for that repeat."""
    seeded = config.model_copy(
        update={"model_configuration": _seeded(config.model_configuration, repeat)}
    )
    eval_case = EvalCase(eval_id=case.case_id, conversation_scenario=adk_scenario(case))
    try:
        with quiet_experimental():
            simulator = UserSimulatorProvider(seeded).provide(eval_case)
    except (ValueError, ImportError) as exc:
        raise ConfigError(f"user_simulator_config.model: {_first_line(exc)}") from None
    # ADK builds the model inside the simulator (LLMRegistry.resolve(model)(model=...)) and
    # offers no way to pass one in: the counter goes around the one it built.
    inner = getattr(simulator, "_llm", None)
    if not isinstance(inner, BaseLlm):
        raise RuntimeError("ADK's LlmBackedUserSimulator no longer keeps its model in _llm")
    counting = CountingLlm(model=inner.model, inner=inner)
    simulator._llm = counting  # type: ignore[attr-defined]
    return simulator, counting


def _seeded(configuration: Any, repeat: int) -> Any:
    base = configuration.seed or 0
    return configuration.model_copy(update={"seed": base + repeat})


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
