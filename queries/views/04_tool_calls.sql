-- tool_calls: one row per tool execution, in call order within its turn (seq).
-- ADK's `execute_tool (merged)` marker spans are left out. Calls made inside an AgentTool
-- are kept, flagged in_agent_tool, and get no seq: they are not part of the turn's
-- trajectory (ADK eval does not see them either).
-- parallel_group: calls sharing it came from one model response, or from branches of a
-- ParallelAgent, so their relative order depends on timing.
CREATE OR REPLACE VIEW tool_calls AS
WITH calls AS (
    SELECT t.turn_id, t.tool_depth, t.agent_path, t.fanout_span_id, s.*
    FROM agent_spans s
    JOIN span_tree t USING (trace_id, span_id)
    WHERE s.op = 'tool'
),
model_calls AS (
    SELECT trace_id, parent_span_id, span_id, start_ns
    FROM agent_spans
    WHERE op IN ('llm', 'llm_wrapper') AND parent_span_id IS NOT NULL
),
with_response AS (
    -- The model call that asked for a tool is the latest model call under the same agent
    -- span that started before it; calls sharing it came from one model response.
    SELECT c.*, m.span_id AS response_span_id
    FROM calls c
    ASOF LEFT JOIN model_calls m
        ON m.trace_id = c.trace_id
       AND m.parent_span_id = c.parent_span_id
       AND c.start_ns >= m.start_ns
)
SELECT
    turn_id,
    trace_id,
    span_id,
    CASE WHEN tool_depth = 0 THEN row_number() OVER (
        PARTITION BY turn_id, tool_depth = 0 ORDER BY start_ns, span_id
    ) END AS seq,
    tool_depth > 0 AS in_agent_tool,
    tool_name AS name,
    tool_args AS args,
    tool_args IS NOT NULL AS args_captured,
    tool_result AS result,
    tool_call_id AS call_id,
    tool_type,
    agent_name,
    agent_path,
    response_span_id,
    -- Calls in one group have no fixed order: they came from one model response, or from
    -- branches of an agent whose sub-agents ran in parallel.
    coalesce(fanout_span_id, response_span_id, span_id) AS parallel_group,
    is_error,
    CASE
        WHEN NOT is_error THEN NULL
        WHEN error_type = 'TOOL_ERROR' THEN 'returned_error'
        WHEN tool_type = 'BaseTool' THEN 'unknown_tool'
        WHEN exception_type IS NOT NULL THEN 'raised'
        ELSE 'error'
    END AS error_kind,
    error_type,
    status_message AS error_message,
    start_ns,
    end_ns,
    duration_ms,
    convention
FROM with_response
