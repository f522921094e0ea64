-- trajectories: one row per turn with its tool calls in order, as ADK eval sees them
-- (the turn's own calls, including sub-agents' and transfer_to_agent; not AgentTool internals).
CREATE OR REPLACE VIEW trajectories AS
WITH ordered AS (
    SELECT
        turn_id,
        list({'name': name, 'args': args} ORDER BY seq) AS calls,
        list(name ORDER BY seq) AS tool_names,
        bool_and(args_captured) AS args_captured
    FROM tool_calls
    WHERE seq IS NOT NULL
    GROUP BY turn_id
)
SELECT
    t.turn_id,
    t.trace_id,
    t.run_id,
    t.eval_set_id,
    t.case_id,
    t.repeat,
    t.turn_index,
    t.session_id,
    coalesce(o.calls, []) AS calls,
    coalesce(o.tool_names, []) AS tool_names,
    t.tool_calls AS n_calls,
    o.args_captured,
    t.is_error
FROM turns t
LEFT JOIN ordered o USING (turn_id)
