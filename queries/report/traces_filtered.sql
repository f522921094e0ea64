-- traces_filtered: the newest traffic traces matching the traces page's filters, those that
-- need a trace's other spans included: an agent that ran in it, a span that errored, a tool
-- called, its model calls' tokens, a text in its model calls' messages (the page then keeps
-- the turns whose user or final message holds it). A trace's spans start after its root, so
-- the time filter narrows every span read. Reads `attrs`, and `attributes` only for the text.
-- One row per trace.
-- Parameters: $1 since_ns (or NULL), $2 before_ns (or NULL), $3 service_name (or NULL),
-- $4 min_latency_ms (or NULL), $5 limit, $6 agent (or NULL), $7 errors only (boolean),
-- $8 tool name (or NULL), $9 min_tokens (or NULL), $10 text, lower case (or NULL).
--
-- Columns:
--   trace_id    the trace
--   start_ns    its root span's start, epoch ns
WITH roots AS (
    SELECT trace_id, start_ns
    FROM spans
    WHERE parent_span_id IS NULL
      AND scope_name IS DISTINCT FROM 'tracegrade'
      AND ($1::BIGINT IS NULL OR start_ns >= $1)
      AND ($2::BIGINT IS NULL OR start_ns < $2)
      AND ($3::VARCHAR IS NULL OR service_name = $3)
      AND ($4::DOUBLE IS NULL OR (end_ns - start_ns) / 1e6 >= $4)
),
marks AS (
    SELECT
        trace_id,
        bool_or(status_code = 'ERROR') AS errored,
        bool_or(coalesce(attrs."gen_ai.agent.name", attrs."agent.name") = $6) AS has_agent,
        bool_or(coalesce(attrs."gen_ai.tool.name", attrs."tool.name") = $8) AS has_tool,
        sum(coalesce(
            attrs."gen_ai.usage.input_tokens", attrs."gen_ai.usage.prompt_tokens",
            attrs."llm.token_count.prompt")::BIGINT)
        + sum(coalesce(
            attrs."gen_ai.usage.output_tokens", attrs."gen_ai.usage.completion_tokens",
            attrs."llm.token_count.completion")::BIGINT) AS tokens,
        bool_or(
            $10::VARCHAR IS NOT NULL
            AND coalesce(attrs."gen_ai.operation.name", '') IN ('generate_content', 'chat', '')
            AND contains(lower(attributes::VARCHAR), $10)
        ) AS has_text
    FROM spans
    WHERE ($1::BIGINT IS NULL OR start_ns >= $1)
      AND trace_id IN (SELECT trace_id FROM roots)
    GROUP BY trace_id
)
SELECT r.trace_id, r.start_ns
FROM roots r
JOIN marks m USING (trace_id)
WHERE ($6::VARCHAR IS NULL OR m.has_agent)
  AND (NOT $7 OR m.errored)
  AND ($8::VARCHAR IS NULL OR m.has_tool)
  AND ($9::BIGINT IS NULL OR m.tokens >= $9)
  AND ($10::VARCHAR IS NULL OR m.has_text)
ORDER BY r.start_ns DESC, r.trace_id DESC
LIMIT $5
