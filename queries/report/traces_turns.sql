-- traces_turns: the traffic turns of chosen traces, as the traces page lists them, newest
-- first. One row per turn. The turns are built with the views' own table macros over the
-- chosen traces' spans alone: a filter on the `turns` view would not reach its spans scan,
-- which would walk every stored span (minutes at 1M turns). A trace's spans start after its
-- root, so the earliest root's start narrows the scan to the file's recent row groups.
-- Parameters: $1 trace_ids, $2 the earliest of their roots' starts (epoch ns), $3 text, lower
-- case (or NULL: any): kept are the turns whose user or final message holds it.
--
-- Columns:
--   turn_id, trace_id, root_agent, models, latency_ms, llm_calls, tool_calls, tool_errors,
--   total_tokens, user_text, final_text, is_error, error_type, service_name,
--   service_version   as in turns
--   started_us        the turn's start, epoch microseconds
WITH picked AS (
    SELECT * FROM spans WHERE start_ns >= $2 AND list_contains($1, trace_id)
),
normalised AS (SELECT * FROM tg_agent_spans('picked')),
tree AS (SELECT * FROM tg_span_tree('normalised', 'picked')),
model_calls AS (SELECT * FROM tg_llm_calls('normalised', 'tree')),
calls AS (SELECT * FROM tg_tool_calls('normalised', 'tree'))
SELECT turn_id, trace_id, root_agent, models, epoch_us(started_at) AS started_us, latency_ms,
       llm_calls, tool_calls, tool_errors, total_tokens::BIGINT AS total_tokens, user_text,
       final_text, is_error, error_type, service_name, service_version
FROM tg_turns('normalised', 'tree', 'model_calls', 'calls', 'picked')
WHERE run_id IS NULL
  AND ($3::VARCHAR IS NULL
       OR contains(lower(coalesce(user_text, '') || chr(10) || coalesce(final_text, '')), $3))
ORDER BY start_ns DESC, turn_id DESC
