-- llm_calls: one row per model call, in the turn it belongs to.
-- Calls made inside an AgentTool (a separate ADK session) are kept but flagged
-- in_agent_tool and get no seq, as ADK eval does not count them in the outer turn.
-- A model span inside another (span_tree.model_span_id: one call seen by two
-- instrumentations, each with the same usage) is no call of its own: the outer one is the
-- row, with what it lacks (tokens, model, content) taken from the one inside.
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
--   calls_folded        the row stands for an unknown number of calls (agent_spans.calls_folded):
--                       its tokens are NULL, and so are its turn's call count and token sums
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
--
-- tg_llm_calls(normalised, tree): the same, over the relations named `normalised` (rows of
-- agent_spans) and `tree` (their span_tree rows), as scoring builds it.
CREATE OR REPLACE MACRO tg_llm_calls(normalised, tree) AS TABLE
WITH model_spans AS MATERIALIZED (
    -- Each message document parsed once, here, keeping only what is read from it: a
    -- materialised CTE holds every column it selects, and the window below every column
    -- it passes on (the documents are most of a model call's bytes).
    SELECT
        * EXCLUDE (attributes, tool_definitions, tool_args, tool_result,
                   input_messages, output_messages, request, response),
        input_messages IS NOT NULL AS has_request,
        output_messages IS NOT NULL AS has_response,
        tg_messages_user_text(request) AS request_user_text,
        tg_messages_text(response) AS response_text,
        tg_messages_tool_calls(response) AS response_tool_calls
    FROM (
        SELECT *, tg_messages(input_messages) AS request, tg_messages(output_messages) AS response
        FROM query_table(normalised)
        WHERE op IN ('llm', 'llm_wrapper')
    )
),
calls AS MATERIALIZED (
    -- Read twice (the calls nested in another, and the rest): walked once.
    SELECT
        t.turn_id,
        t.tool_depth,
        t.agent_path,
        t.model_span_id,
        s.*,
        -- ADK v1 records messages on the call_llm wrapper, tokens on its child.
        CASE WHEN s.has_request THEN s.request_user_text ELSE w.request_user_text END AS user_text,
        CASE WHEN s.has_response THEN s.response_text ELSE w.response_text END AS output_text,
        CASE WHEN s.has_response THEN s.response_tool_calls ELSE w.response_tool_calls END
            AS output_tool_calls,
        s.has_request OR s.has_response OR coalesce(w.has_request OR w.has_response, false)
            AS content_captured
    FROM model_spans s
    JOIN query_table(tree) t USING (trace_id, span_id)
    LEFT JOIN model_spans w
        ON w.trace_id = s.trace_id AND w.span_id = s.parent_span_id AND w.op = 'llm_wrapper'
    WHERE s.op = 'llm'
),
inner_calls AS (
    -- The model spans nested in another, by the span they are nested in (the first, if several).
    SELECT
        trace_id,
        model_span_id AS span_id,
        arg_min(model, start_ns) AS model,
        arg_min(input_tokens, start_ns) AS input_tokens,
        arg_min(output_tokens, start_ns) AS output_tokens,
        arg_min(reasoning_tokens, start_ns) AS reasoning_tokens,
        arg_min(cached_tokens, start_ns) AS cached_tokens,
        arg_min(finish_reasons, start_ns) AS finish_reasons,
        arg_min(user_text, start_ns) AS user_text,
        arg_min(output_text, start_ns) AS output_text,
        arg_min(output_tool_calls, start_ns) AS output_tool_calls,
        bool_or(content_captured) AS content_captured
    FROM calls
    WHERE model_span_id IS NOT NULL
    GROUP BY trace_id, model_span_id
),
outer_calls AS (
    SELECT
        c.* REPLACE (
            coalesce(c.model, i.model) AS model,
            coalesce(c.input_tokens, CASE WHEN NOT c.calls_folded THEN i.input_tokens END)
                AS input_tokens,
            coalesce(c.output_tokens, CASE WHEN NOT c.calls_folded THEN i.output_tokens END)
                AS output_tokens,
            coalesce(c.reasoning_tokens, CASE WHEN NOT c.calls_folded THEN i.reasoning_tokens END)
                AS reasoning_tokens,
            coalesce(c.cached_tokens, CASE WHEN NOT c.calls_folded THEN i.cached_tokens END)
                AS cached_tokens,
            coalesce(c.finish_reasons, i.finish_reasons) AS finish_reasons,
            coalesce(c.user_text, i.user_text) AS user_text,
            coalesce(c.output_text, i.output_text) AS output_text,
            coalesce(c.output_tool_calls, i.output_tool_calls) AS output_tool_calls,
            c.content_captured OR coalesce(i.content_captured, false) AS content_captured
        )
    FROM calls c
    LEFT JOIN inner_calls i USING (trace_id, span_id)
    WHERE c.model_span_id IS NULL
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
    calls_folded,
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
    user_text,
    output_text,
    output_tool_calls,
    content_captured,
    convention
FROM outer_calls;

CREATE OR REPLACE VIEW llm_calls AS SELECT * FROM tg_llm_calls('agent_spans', 'span_tree');
