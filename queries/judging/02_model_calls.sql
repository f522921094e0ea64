-- The model calls of the judged turns, in order, with what the spans recorded of each
-- request (system instruction, tool definitions) and response (the message's parts). ADK
-- schema v2 records them as GenAI-semconv JSON (gen_ai.system_instructions,
-- gen_ai.tool.definitions, gen_ai.output.messages); v1 as genai JSON on the call_llm wrapper
-- (gcp.vertex.agent.llm_request / llm_response). `response_key` is the span tool calls name
-- as the call whose response asked for them (tool_calls.response_span_id).
SELECT
    l.turn_id, l.seq, l.agent_name, l.start_ns, l.end_ns, l.is_error,
    coalesce(w.span_id, s.span_id) AS response_key,
    s.attributes->>'gen_ai.system_instructions' AS system_instructions,
    s.attributes->>'gen_ai.tool.definitions' AS tool_definitions,
    coalesce(s.attributes->>'gcp.vertex.agent.llm_request',
             w.attributes->>'gcp.vertex.agent.llm_request') AS llm_request,
    coalesce(s.attributes->>'gen_ai.output.messages',
             s.attributes->>'gcp.vertex.agent.llm_response',
             w.attributes->>'gcp.vertex.agent.llm_response') AS output,
    l.content_captured
FROM llm_calls l
JOIN judged_turns USING (turn_id)
JOIN agent_spans s ON s.trace_id = l.trace_id AND s.span_id = l.span_id
LEFT JOIN agent_spans w
    ON w.trace_id = s.trace_id AND w.span_id = s.parent_span_id AND w.op = 'llm_wrapper'
WHERE l.seq IS NOT NULL
ORDER BY l.turn_id, l.seq
