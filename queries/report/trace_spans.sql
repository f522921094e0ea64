-- trace_spans: every span of chosen traces, normalised (agent_spans), in start order: what a
-- turn's waterfall draws once the turn's own subtree is picked out. One row per span.
-- Parameters: trace_ids, trace_ids again (for the spans' exception events).
--
-- Columns:
--   trace_id, span_id, parent_span_id, name, op, start_ns, end_ns, duration_ms,
--   status_message, is_error, error_type, exception_type, exception_message, agent_name,
--   tool_name, tool_args, tool_result, model, input_tokens, output_tokens, cached_tokens,
--   reasoning_tokens, input_messages, output_messages   as in agent_spans
--   exception_stacktrace   the first exception event's exception.stacktrace (the
--                          traceback OTel records with the exception), if any
WITH tracebacks AS (
    SELECT trace_id, span_id, list_filter(
        json_extract(events, '$[*]'), lambda e: json_extract_string(e, '$.name') = 'exception'
    )[1]->'attributes'->>'exception.stacktrace' AS exception_stacktrace
    FROM spans
    WHERE list_contains(?, trace_id) AND events <> '[]'
)
SELECT a.trace_id, a.span_id, a.parent_span_id, a.name, a.op, a.start_ns, a.end_ns,
       a.duration_ms, a.status_message, a.is_error, a.error_type, a.exception_type,
       a.exception_message, a.agent_name, a.tool_name, a.tool_args, a.tool_result, a.model,
       a.input_tokens, a.output_tokens, a.cached_tokens, a.reasoning_tokens,
       a.input_messages, a.output_messages, t.exception_stacktrace
FROM agent_spans a
LEFT JOIN tracebacks t USING (trace_id, span_id)
WHERE list_contains(?, a.trace_id)
ORDER BY a.trace_id, a.start_ns, a.span_id
