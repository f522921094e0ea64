-- llm_calls: one row per model call, in the turn it belongs to.
-- Calls made inside an AgentTool (a separate ADK session) are kept but flagged
-- in_agent_tool and get no seq, as ADK eval does not count them in the outer turn.
--
-- Columns:
--   turn_id             the turn (see turns)
--   trace_id            the span's trace
--   span_id             the model-call span
--   seq                 1, 2, ... in start order within the turn; NULL inside an AgentTool
--   in_agent_tool       made by an agent an AgentTool ran
--   agent_name          the agent that called the model
--   agent_path          enclosing agents, e.g. pipeline.writer
--   model               the model asked
--   input_tokens        prompt tokens (NULL when not reported)
--   output_tokens       output tokens, thoughts included
--   reasoning_tokens    thought tokens (part of output)
--   cached_tokens       cached prompt tokens (part of input)
--   total_tokens        input + output, as ADK's token_usage counts; NULL if neither reported
--   finish_reasons      JSON list, e.g. ["stop"]
--   is_error            the call raised
--   error_type          its error type
--   error_message       its status message
--   start_ns            start, epoch ns
--   end_ns              end, epoch ns
--   duration_ms         duration in milliseconds
--   session_id          ADK session (conversation) id
--   invocation_id       ADK invocation id
--   user_text           the latest real user message in the request, when captured
--   output_text         the response's text, when captured
--   output_tool_calls   how many tool calls the response asked for, when captured
--   content_captured    the call's messages were recorded
--   convention          how the span was recorded (see agent_spans)
CREATE OR REPLACE VIEW llm_calls AS
WITH model_spans AS MATERIALIZED (
    SELECT * FROM agent_spans WHERE op IN ('llm', 'llm_wrapper')
),
joined AS (
    SELECT
        t.turn_id,
        t.tool_depth,
        t.agent_path,
        s.*,
        -- ADK v1 records messages on the call_llm wrapper, tokens on its child.
        coalesce(s.input_messages, w.input_messages) AS request_messages,
        coalesce(s.output_messages, w.output_messages) AS response_messages
    FROM model_spans s
    JOIN span_tree t USING (trace_id, span_id)
    LEFT JOIN model_spans w
        ON w.trace_id = s.trace_id AND w.span_id = s.parent_span_id AND w.op = 'llm_wrapper'
    WHERE s.op = 'llm'
),
calls AS (
    -- Each document parsed once, whatever is read from it.
    SELECT *, tg_messages(request_messages) AS request, tg_messages(response_messages) AS response
    FROM joined
)
SELECT
    turn_id,
    trace_id,
    span_id,
    tg_turn_seq(turn_id, tool_depth, start_ns, span_id) AS seq,
    tool_depth > 0 AS in_agent_tool,
    agent_name,
    agent_path,
    model,
    input_tokens,
    output_tokens,
    reasoning_tokens,
    cached_tokens,
    CASE WHEN input_tokens IS NOT NULL OR output_tokens IS NOT NULL
        THEN coalesce(input_tokens, 0) + coalesce(output_tokens, 0) END AS total_tokens,
    finish_reasons,
    is_error,
    error_type,
    status_message AS error_message,
    start_ns,
    end_ns,
    duration_ms,
    session_id,
    invocation_id,
    tg_messages_user_text(request) AS user_text,
    tg_messages_text(response) AS output_text,
    tg_messages_tool_calls(response) AS output_tool_calls,
    request_messages IS NOT NULL OR response_messages IS NOT NULL AS content_captured,
    convention
FROM calls
