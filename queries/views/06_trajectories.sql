-- trajectories: one row per turn with its tool calls in order, as ADK eval sees them
-- (the turn's own calls, including sub-agents' and transfer_to_agent; not AgentTool internals).
--
-- Columns:
--   turn_id         the turn
--   trace_id        its trace
--   run_id          eval runs: the run
--   eval_set_id     eval runs: the eval set
--   case_id         eval runs: the case
--   repeat          eval runs: the repeat
--   turn_index      eval runs: the turn's position in the case
--   session_id      ADK session id
--   calls           list of {name, args} in order (args: JSON text, NULL if not captured)
--   tool_names      list of the tool names in order
--   n_calls         number of calls
--   args_captured   all arguments were recorded (NULL without calls)
--   is_error        the turn crashed
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
