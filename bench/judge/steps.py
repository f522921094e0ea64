"""The bench's steps, each run in a fresh process by run.py; each prints one JSON line.

prepare DIR TURNS   replay copies of the home-automation eval set through its offline
                    agent with tracegrade (spans into DIR/bench.duckdb) and keep ADK's
                    own invocations of the very same turns (DIR/inferences.json)
adk DIR             LocalEvalService.evaluate over those invocations, at its defaults
ours DIR CONC       tracegrade scoring the stored run, --judge-concurrency CONC
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

from judge import CRITERIA, DELAY_S, BenchJudge

logging.getLogger("google_adk").setLevel(logging.ERROR)
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "home_automation"
_CASE: contextvars.ContextVar[str] = contextvars.ContextVar("case")


def prepare(workdir: Path, turns: int) -> dict[str, Any]:
    from google.adk.evaluation.evaluation_generator import EvaluationGenerator
    from google.adk.evaluation.request_intercepter_plugin import _RequestIntercepterPlugin
    from google.adk.runners import InMemoryRunner

    import tracegrade
    import tracegrade.harness.replay as replay
    import tracegrade.harness.run as harness_run
    from tracegrade.harness import RunOptions, run_eval

    source = json.loads((EXAMPLE / "home.evalset.json").read_text())
    # The example's scenario case has no conversation to replay: ADK's simulator drives it.
    static = [case for case in source["eval_cases"] if case.get("conversation")]
    cases, count = [], 0
    while count < turns:
        for case in static:
            cases.append({**case, "eval_id": f"{case['eval_id']}-{len(cases)}"})
            count += len(case["conversation"])
    evalset = workdir / "bench.evalset.json"
    evalset.write_text(json.dumps({"eval_set_id": "bench", "eval_cases": cases}))
    recorded: dict[str, Any] = {}

    class Recording(InMemoryRunner):
        """ADK's own invocations of each replayed case, app details as its inference has
        them (the requests each agent made), so both sides judge the same prompts."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self.requests = _RequestIntercepterPlugin(name="request_intercepter")
            super().__init__(*args, plugins=[self.requests], **kwargs)

        async def close(self) -> None:
            listed = await self.session_service.list_sessions(app_name=self.app_name)
            for item in listed.sessions:
                session = await self.session_service.get_session(
                    app_name=self.app_name, user_id=item.user_id, session_id=item.id
                )
                events = list(session.events)
                details = EvaluationGenerator._get_app_details_by_invocation_id(
                    events, self.requests
                )
                invocations = EvaluationGenerator.convert_events_to_eval_invocations(
                    events, details
                )
                recorded[_CASE.get()] = [
                    i.model_dump(mode="json", exclude_none=True) for i in invocations
                ]
            await super().close()

    original = replay.replay_case

    async def tagged(agent: Any, case: Any, *rest: Any) -> Any:
        _CASE.set(case.case_id)
        return await original(agent, case, *rest)

    replay.InMemoryRunner = Recording  # type: ignore[misc]
    harness_run.replay_case = tagged  # type: ignore[assignment]
    capture = tracegrade.configure(workdir / "bench.duckdb")
    run = run_eval(RunOptions(eval_sets=[str(evalset)], agent=str(EXAMPLE), parallel=8))
    capture.shutdown()
    (workdir / "inferences.json").write_text(json.dumps(recorded))
    (workdir / "run_id").write_text(run.run_id)
    return {"cases": len(cases), "turns": count, "delay_s": DELAY_S}


def adk(workdir: Path) -> dict[str, Any]:
    from google.adk.agents import Agent
    from google.adk.evaluation.base_eval_service import (
        EvaluateConfig,
        EvaluateRequest,
        InferenceResult,
        InferenceStatus,
    )
    from google.adk.evaluation.eval_config import EvalConfig, get_eval_metrics_from_config
    from google.adk.evaluation.eval_set import EvalSet
    from google.adk.evaluation.in_memory_eval_sets_manager import InMemoryEvalSetsManager
    from google.adk.evaluation.local_eval_service import LocalEvalService

    eval_set = EvalSet.model_validate_json((workdir / "bench.evalset.json").read_text())
    recorded = json.loads((workdir / "inferences.json").read_text())
    manager = InMemoryEvalSetsManager()
    manager.create_eval_set(app_name="home", eval_set_id="bench")
    results = []
    for case in eval_set.eval_cases:
        manager.add_eval_case(app_name="home", eval_set_id="bench", eval_case=case)
        actual = [_invocation(i) for i in recorded[case.eval_id]]
        results.append(
            InferenceResult(
                app_name="home",
                eval_set_id="bench",
                eval_case_id=case.eval_id,
                inferences=actual,
                session_id=None,
                status=InferenceStatus.SUCCESS,
            )
        )
    metrics = get_eval_metrics_from_config(EvalConfig.model_validate({"criteria": CRITERIA}))
    service = LocalEvalService(
        root_agent=Agent(name="a", model="gemini-2.5-flash"), eval_sets_manager=manager
    )
    request = EvaluateRequest(
        inference_results=results, evaluate_config=EvaluateConfig(eval_metrics=metrics)
    )

    async def evaluate() -> list[Any]:
        return [r async for r in service.evaluate(request)]

    start, cpu = time.monotonic(), time.process_time()
    out = asyncio.run(evaluate())
    wall, cpu = time.monotonic() - start, time.process_time() - cpu
    scores = {
        f"{r.eval_id}/{m.metric_name}": m.score
        for r in out
        for m in r.overall_eval_metric_results
        if m.metric_name in CRITERIA
    }
    return {"wall_s": wall, "cpu_s": cpu, "calls": BenchJudge.calls, "peak": BenchJudge.peak,
            "scores": scores}  # fmt: skip


def _invocation(data: dict[str, Any]) -> Any:
    """An invocation back from JSON, its tool declarations `types.Tool` again (as ADK's
    inference hands them over; JSON leaves them dicts)."""
    from google.adk.evaluation.eval_case import Invocation
    from google.genai import types

    invocation = Invocation.model_validate(data)
    for agent in (invocation.app_details.agent_details if invocation.app_details else {}).values():
        agent.tool_declarations = [types.Tool.model_validate(t) for t in agent.tool_declarations]
    return invocation


def ours(workdir: Path, concurrency: int) -> dict[str, Any]:
    # The evaluators' modules as the ADK side has them (LocalEvalService imports them all
    # before its clock starts): imports are not scoring.
    from google.adk.evaluation import (  # noqa: F401
        final_response_match_v2,
        rubric_based_final_response_quality_v1,
    )

    from tracegrade.scoring import Selection, available_metrics, parse_config, score
    from tracegrade.scoring.judging import JudgeSettings, adk_runs  # noqa: F401
    from tracegrade.store import connect

    connection = connect(workdir / "bench.duckdb")
    run_id = (workdir / "run_id").read_text()
    specs = available_metrics()
    config = parse_config({"criteria": CRITERIA}, specs)
    start, cpu = time.monotonic(), time.process_time()
    result = score(
        connection, Selection(run_id=run_id), config, specs, JudgeSettings(concurrency=concurrency)
    )
    wall, cpu = time.monotonic() - start, time.process_time() - cpu
    rows = connection.execute(
        "SELECT case_id, metric, score FROM scores WHERE scoring_id = ? AND level = 'case' "
        "AND list_contains(?, metric)",
        [result.scoring_id, list(CRITERIA)],
    ).fetchall()
    scores = {f"{case}/{metric}": value for case, metric, value in rows}
    return {"wall_s": wall, "cpu_s": cpu, "calls": BenchJudge.calls, "peak": BenchJudge.peak,
            "scores": scores}  # fmt: skip


if __name__ == "__main__":
    step, folder, *rest = sys.argv[1:]
    steps = {"prepare": prepare, "adk": adk, "ours": ours}
    print(json.dumps(steps[step](Path(folder), *map(int, rest))))
