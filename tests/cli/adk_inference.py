"""`adk eval`'s inference, run as its own process, its spans exported by the agent module.

`adk eval` needs google-adk's eval extra (Vertex AI's evaluation SDK) to start at all, even
for metrics that need none of it; its inference is
`LocalEvalService._perform_inference_single_eval_item`, which this script does step for
step: each case of the eval set through `EvaluationGenerator._generate_inferences_from_root_agent`
with the user simulator ADK's `UserSimulatorProvider` picks for it (the static one for a
conversation), in a fresh session. Then one conversation no eval set holds, through a plain
`InMemoryRunner`, as production would have it.

    python adk_inference.py EVALSET_FILE [EXTRA_USER_MESSAGE]

The agent module (tests/cli/evalset_agent) writes the spans to $EVALSET_AGENT_DB.
"""

from __future__ import annotations

import asyncio
import sys
import uuid
from pathlib import Path

from google.adk.evaluation.eval_set import EvalSet
from google.adk.evaluation.evaluation_generator import EvaluationGenerator
from google.adk.evaluation.simulation.user_simulator_provider import UserSimulatorProvider
from google.adk.runners import InMemoryRunner
from google.genai import types
from opentelemetry import trace

from tests.cli.evalset_agent.agent import root_agent


async def infer(eval_set: EvalSet) -> None:
    provider = UserSimulatorProvider()
    for case in eval_set.eval_cases:
        await EvaluationGenerator._generate_inferences_from_root_agent(
            root_agent=root_agent,
            user_simulator=provider.provide(case),
            initial_session=case.session_input,
            session_id=f"___eval___session___{uuid.uuid4()}",  # as adk eval names them
        )


async def converse(text: str) -> None:
    runner = InMemoryRunner(agent=root_agent, app_name="production")
    session = await runner.session_service.create_session(app_name="production", user_id="u")
    message = types.Content(role="user", parts=[types.Part(text=text)])
    async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message):
        pass


def main() -> None:
    eval_set = EvalSet.model_validate_json(Path(sys.argv[1]).read_text())
    asyncio.run(infer(eval_set))
    for text in sys.argv[2:]:
        asyncio.run(converse(text))
    provider = trace.get_tracer_provider()
    provider.shutdown()  # type: ignore[attr-defined]  # the SDK's: flushes to the file


if __name__ == "__main__":
    main()
