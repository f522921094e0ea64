"""`tracegrade lint-tools` on a real ADK agent read without running it, on the example, and
on the definitions stored from an agent's spans."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from tests.support.adk_run import adk_settings, run_scenario
from tests.support.scenarios import Scenario
from tests.support.tool_agents import VALID_CALLS, tools_agent
from tracegrade.capture import BlockingSpanProcessor
from tracegrade.cli.main import app
from tracegrade.exit_codes import ExitCode
from tracegrade.scoring.tool_lint import lint
from tracegrade.store import SpanWriter

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "home_automation"


def _findings(output: str) -> set[tuple[str, ...]]:
    """(severity, tool, parameter, rule) of each finding line."""
    found: set[tuple[str, ...]] = set()
    for line in output.splitlines():
        severity, _agent, tool, parameter, rule = line.split()[:5]
        found.add((severity, tool, parameter, rule.rstrip(":")))
    return found


def test_an_agents_tools_are_audited_and_errors_fail_the_gate() -> None:
    result = CliRunner().invoke(app, ["lint-tools", "tests.scoring.lint_agent:root_agent"])
    assert result.exit_code == ExitCode.GATE_FAILED
    assert _findings(result.stdout) == {
        ("error", "getWeather", "-", "name-format"),
        ("warning", "getWeather", "-", "name-verb-first"),
        ("warning", "getWeather", "-", "description-short"),
        ("warning", "getWeather", "city", "parameter-undescribed"),
        ("warning", "weather", "-", "name-verb-first"),
        ("warning", "weather", "-", "description-short"),
        ("error", "weather", "-", "description-duplicate"),
        ("warning", "weather", "city", "parameter-undescribed"),
        ("warning", "set_mode", "mode", "parameter-enum-missing"),
        ("error", "search_web", "-", "description-missing"),
        ("error", "search_web", "limit", "required-unknown"),
        ("error", "search_web", "query", "parameter-untyped"),
    }


def test_the_example_has_warnings_only() -> None:
    result = CliRunner().invoke(app, ["lint-tools", str(EXAMPLE)])
    assert result.exit_code == ExitCode.OK, result.output
    assert _findings(result.stdout) == {
        ("warning", "set_device_info", "status", "parameter-enum-missing"),
        ("warning", "list_devices", "status", "parameter-enum-missing"),
    }


def test_names_that_clash_or_run_long() -> None:
    tools = [
        {"name": "get_order", "description": "Get an order by its id."},
        {"name": "get_order", "description": "Get one order by its id."},
        {"name": "get_orders", "description": "Get all the orders there are."},
        {"name": "set_order", "description": "Set an order's status to a value."},
        {"name": "get_" + "x" * 61, "description": "A name much too long to read."},
    ]
    found = {(f.severity, f.tool, f.rule) for f in lint({"shop": tools})}
    assert ("error", "get_order", "name-duplicate") in found
    assert ("warning", "get_order", "name-confusable") in found  # get_order / get_orders
    assert not any(f[1] == "set_order" and f[2] == "name-confusable" for f in found)
    assert ("error", "get_" + "x" * 61, "name-too-long") in found


def test_the_stored_definitions_are_audited(
    db_path: Path, writer: SpanWriter, captured: BlockingSpanProcessor
) -> None:
    with adk_settings("2", True):
        run_scenario(Scenario("tools", lambda: tools_agent(VALID_CALLS), ("Go",)))
    assert captured.force_flush()
    writer.close()
    result = CliRunner().invoke(app, ["lint-tools", "--db", str(db_path)])
    assert result.exit_code == ExitCode.OK, result.output
    found = _findings(result.stdout)
    assert ("warning", "book_table", "guests", "parameter-undescribed") in found
    assert ("warning", "current_time", "-", "description-short") in found
    assert "4 tools, 0 errors" in result.stderr
