"""tracegrade's names for ADK's judged metrics are ADK's: the map from metric name to
evaluator class equals the one ADK registers (`_register_standard_metrics`, read from its
source: importing ADK's registry needs pandas, the eval extra), and every judged
`PrebuiltMetrics` member has a scorer."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from google.adk.evaluation import metric_info_providers
from google.adk.evaluation.eval_metrics import PrebuiltMetrics

from tracegrade.scoring.criteria import NOT_COMPUTED
from tracegrade.scoring.judging.metrics import ADK_JUDGED
from tracegrade.scoring.metrics import available_metrics

REGISTRY = Path(inspect.getfile(metric_info_providers)).with_name("metric_evaluator_registry.py")
LOCAL = {"tool_trajectory_avg_score", "response_match_score", "tool_call_count_v1",
         "inference_call_count_v1", "token_usage_v1", "invocation_duration_v1"}  # fmt: skip


def _adk_registry() -> dict[str, tuple[str, str]]:
    """metric name -> (module, evaluator class), as _register_standard_metrics registers."""
    tree = ast.parse(REGISTRY.read_text())
    modules = {
        alias.name: node.module.lstrip(".")
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }
    found = {}
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and getattr(call.func, "attr", "") == "register_evaluator":
            args = {k.arg: k.value for k in call.keywords}
            info = eval(  # the provider expression, evaluated with ADK's providers in scope
                compile(ast.Expression(args["metric_info"]), str(REGISTRY), "eval"),
                {**vars(metric_info_providers), "PrebuiltMetrics": PrebuiltMetrics},
            )
            evaluator = args["evaluator"].id  # type: ignore[attr-defined]
            found[info.metric_name] = (modules[evaluator], evaluator)
    return found


def test_judged_metrics_map_to_the_evaluators_adk_registers() -> None:
    registry = _adk_registry()
    assert len(registry) == len(PrebuiltMetrics)
    judged = {name: (m.module, m.evaluator) for name, m in ADK_JUDGED.items()}
    assert judged == {k: v for k, v in registry.items() if k not in LOCAL | set(NOT_COMPUTED)}


def test_every_judged_metric_has_a_scorer_named_as_adk_names_it() -> None:
    specs = available_metrics()
    assert {n for n, s in specs.items() if s.judge == "adk"} == set(ADK_JUDGED)
    assert {n for n, s in specs.items() if s.judge not in (None, "adk")} == {
        "task_completion", "tool_argument_grounding"
    }  # fmt: skip
