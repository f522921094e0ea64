-- traces_turns: the traffic turns of chosen traces, as the traces page lists them, newest
-- first. One row per turn.
-- Parameters: $1 trace_ids, $2 text, lower case (or NULL: any): kept are the turns whose user
-- or final message holds it.
--
-- Columns:
--   turn_id, trace_id, root_agent, models, latency_ms, llm_calls, tool_calls, tool_errors,
--   total_tokens, user_text, final_text, is_error, error_type, service_name,
--   service_version   as in turns
--   started_us        the turn's start, epoch microseconds
SELECT turn_id, trace_id, root_agent, models, epoch_us(started_at) AS started_us, latency_ms,
       llm_calls, tool_calls, tool_errors, total_tokens::BIGINT AS total_tokens, user_text,
       final_text, is_error, error_type, service_name, service_version
FROM turns
WHERE list_contains($1, trace_id) AND run_id IS NULL
  AND ($2::VARCHAR IS NULL
       OR contains(lower(coalesce(user_text, '') || chr(10) || coalesce(final_text, '')), $2))
ORDER BY start_ns DESC, turn_id DESC
