"""The views the data model promises (DESIGN.md): tests check each exists and is documented."""

VIEWS = {
    "agent_spans",
    "span_tree",
    "llm_calls",
    "tool_calls",
    "turns",
    "trajectories",
    "eval_runs",
    "expected_turns",
    "expected_tool_calls",
    "tool_definitions",
}
