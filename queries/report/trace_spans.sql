-- trace_spans: every span of chosen traces, normalised (agent_spans), in start order: what a
-- turn's waterfall draws once the turn's own subtree is picked out. One row per span.
-- Parameters: trace_ids.
--
-- Columns:
--   trace_id, span_id, parent_span_id, name, op, start_ns, end_ns, duration_ms,
--   status_message, is_error, error_type, exception_type, exception_message, agent_name,
--   tool_name, tool_args, tool_result, model, input_tokens, output_tokens, cached_tokens,
--   reasoning_tokens   as in agent_spans
SELECT trace_id, span_id, parent_span_id, name, op, start_ns, end_ns, duration_ms,
       status_message, is_error, error_type, exception_type, exception_message, agent_name,
       tool_name, tool_args, tool_result, model, input_tokens, output_tokens, cached_tokens,
       reasoning_tokens
FROM agent_spans
WHERE list_contains(?, trace_id)
ORDER BY trace_id, start_ns, span_id
