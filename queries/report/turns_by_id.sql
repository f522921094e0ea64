-- turns_by_id: the facts of chosen turns, for their turn views. One row per turn.
-- Parameters: trace_ids (the turns' traces: the filter reaches the spans scan), turn_ids.
--
-- Columns:
--   turn_id, trace_id, root_span_id, run_id, eval_set_id, case_id, repeat, turn_index,
--   session_id, root_agent, latency_ms, llm_calls, tool_calls, tool_errors, input_tokens,
--   output_tokens, total_tokens, models, user_text, final_text, is_error, error_type,
--   error_message, service_name, service_version     as in turns
--   started_us        the turn's start, epoch microseconds
SELECT turn_id, trace_id, root_span_id, run_id, eval_set_id, case_id, repeat, turn_index,
       session_id, root_agent, epoch_us(started_at) AS started_us, latency_ms, llm_calls,
       tool_calls, tool_errors, input_tokens::BIGINT AS input_tokens,
       output_tokens::BIGINT AS output_tokens, total_tokens::BIGINT AS total_tokens, models,
       user_text, final_text, is_error, error_type, error_message, service_name,
       service_version
FROM turns
WHERE list_contains(?, trace_id) AND list_contains(?, turn_id)
ORDER BY turn_id
