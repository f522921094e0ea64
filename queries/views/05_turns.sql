-- turns: one row per user turn (an ADK invocation; in eval runs, one replayed turn).
-- Counts and tokens cover the turn's own work: AgentTool internals are excluded, as in
-- ADK eval. Token sums are NULL when no model call reported that count, and counts and sums
-- are NULL where they cannot be known (a folded model span, llm_calls.calls_folded; tool
-- calls known only from the model's responses, whose errors no span records): never wrong.
-- A trace holding only an agent span with nothing under it (a controller's record of a turn
-- run elsewhere), not written by ADK, is no turn.
--
-- Columns:
--   turn_id            trace_id || '-' || root_span_id: the key every other view uses
--   trace_id           the turn's trace
--   root_span_id       the span the turn is rooted at
--   root_name          that span's name
--   run_id             eval runs: the run (NULL for traffic)
--   eval_set_id        eval runs: the eval set
--   case_id            eval runs: the case
--   repeat             eval runs: the repeat, from 0
--   turn_index         eval runs: the turn's position in the case, from 0
--   session_id         ADK session (conversation) id
--   invocation_id      ADK invocation id
--   user_id            user id, where recorded
--   root_agent         the outermost agent (or workflow) name
--   convention         how the turn was recorded (see agent_spans)
--   start_ns           start, epoch ns
--   end_ns             end, epoch ns
--   started_at         start as a timestamp
--   latency_ms         the turn's wall-clock time in milliseconds
--   llm_calls          model calls (NULL when folded)
--   llm_errors         model calls that raised (NULL when folded)
--   tool_calls         tool calls (sub-agents' and transfer_to_agent included)
--   tool_errors        tool calls that failed (NULL when not recorded)
--   input_tokens       prompt tokens
--   output_tokens      output tokens, thoughts included
--   reasoning_tokens   thought tokens
--   cached_tokens      cached prompt tokens
--   total_tokens       input + output (ADK's token_usage)
--   models             the models the turn called
--   user_text          the user's message, when captured (always in eval runs); else from the
--                      root agent span's messages
--   final_text         the final response text, when captured (always in eval runs); else
--                      the root agent span's answer
--   args_captured      all tool arguments were recorded (NULL without tool calls)
--   is_error           the turn crashed (agent, model or tool raised): an error, not a
--                      wrong answer
--   error_type         the error's type
--   error_message      the error's message
--   service_name       the root span's resource service.name (OTEL_SERVICE_NAME)
--   service_version    the root span's resource service.version (set it with
--                      OTEL_RESOURCE_ATTRIBUTES=service.version=1.4.2)
--
-- tg_turns(normalised, tree, model_calls, calls, source): the same, over the relations so
-- named (rows of agent_spans, span_tree, llm_calls, tool_calls, and their spans), as scoring
-- builds it.
CREATE OR REPLACE MACRO tg_turns(normalised, tree, model_calls, calls, source) AS TABLE
WITH members AS (
    SELECT t.turn_id, t.turn_span_id, t.tool_depth, t.depth, s.*
    FROM query_table(tree) t
    JOIN query_table(normalised) s USING (trace_id, span_id)
),
summary AS (
    SELECT
        turn_id,
        any_value(trace_id) AS trace_id,
        any_value(turn_span_id) AS root_span_id,
        arg_min(session_id, start_ns) FILTER (tool_depth = 0 AND session_id IS NOT NULL) AS session_id,
        arg_min(invocation_id, start_ns) FILTER (tool_depth = 0 AND invocation_id IS NOT NULL)
            AS invocation_id,
        arg_min(agent_name, depth) FILTER (tool_depth = 0 AND op IN ('workflow', 'agent')) AS root_agent,
        arg_min(is_error, depth) FILTER (
            tool_depth = 0 AND op IN ('eval_turn', 'workflow', 'agent') AND is_error
        ) AS is_error,
        arg_min(coalesce(error_type, 'error'), depth) FILTER (
            tool_depth = 0 AND op IN ('eval_turn', 'workflow', 'agent') AND is_error
        ) AS error_type,
        arg_min(status_message, depth) FILTER (
            tool_depth = 0 AND op IN ('eval_turn', 'workflow', 'agent') AND is_error
        ) AS error_message,
        mode(convention) FILTER (op IS NOT NULL AND op <> 'eval_turn') AS convention,
        bool_or(op IN ('eval_turn', 'llm', 'tool'))
            OR (bool_or(op IN ('workflow', 'agent'))
                AND (count(*) > 1 OR bool_or(scope_name = 'gcp.vertex.agent'))) AS is_agent_turn
    FROM members
    GROUP BY turn_id
),
llm AS (
    SELECT
        turn_id,
        CASE WHEN NOT bool_or(calls_folded) THEN count(*) END AS llm_calls,
        CASE WHEN NOT bool_or(calls_folded) THEN count(*) FILTER (is_error) END AS llm_errors,
        CASE WHEN NOT bool_or(calls_folded) THEN sum(input_tokens) END AS input_tokens,
        CASE WHEN NOT bool_or(calls_folded) THEN sum(output_tokens) END AS output_tokens,
        CASE WHEN NOT bool_or(calls_folded) THEN sum(reasoning_tokens) END AS reasoning_tokens,
        CASE WHEN NOT bool_or(calls_folded) THEN sum(cached_tokens) END AS cached_tokens,
        CASE WHEN NOT bool_or(calls_folded) THEN sum(total_tokens) END AS total_tokens,
        bool_or(calls_folded) AS calls_folded,
        list(DISTINCT model ORDER BY model) FILTER (model IS NOT NULL) AS models,
        arg_min(user_text, seq) FILTER (user_text IS NOT NULL) AS user_text,
        -- The final response is the last model call of the turn, if it answered in text
        -- and asked for no tool (same rule as ADK eval's final response).
        arg_max(
            CASE WHEN coalesce(output_tool_calls, 0) = 0 THEN output_text END, end_ns
        ) AS final_text
    FROM query_table(model_calls)
    WHERE seq IS NOT NULL
    GROUP BY turn_id
),
root_attrs AS (
    -- The root span's eval-run attributes, from `attrs` where the writer stored them: the
    -- JSON is read only for spans without (a CASE would read every span's attributes:
    -- ~2 of the view's ~4.7 s CPU at 1.16M ADK spans).
    -- The resource is carried unread: only the roots' is parsed, after the join.
    SELECT trace_id, span_id, attrs AS a, resource
    FROM query_table(source)
    WHERE attrs IS NOT NULL
    UNION ALL
    SELECT trace_id, span_id, tg_span_attrs(attributes) AS a, resource
    FROM query_table(source)
    WHERE attrs IS NULL
),
tools AS (
    SELECT
        turn_id,
        count(*) AS tool_calls,
        CASE WHEN bool_and(is_error IS NOT NULL) THEN count(*) FILTER (is_error) END AS tool_errors,
        bool_and(args_captured) AS args_captured
    FROM query_table(calls)
    WHERE seq IS NOT NULL
    GROUP BY turn_id
),
read_turns AS MATERIALIZED (
    -- A row a turn (read twice: for the turns whose texts the root agent span gives).
SELECT
    s.turn_id,
    s.trace_id,
    s.root_span_id,
    r.name AS root_name,
    ra.a."tracegrade.run_id" AS run_id,
    ra.a."tracegrade.eval_set_id" AS eval_set_id,
    ra.a."tracegrade.case_id" AS case_id,
    ra.a."tracegrade.repeat"::INTEGER AS repeat,
    ra.a."tracegrade.turn_index"::INTEGER AS turn_index,
    s.session_id,
    s.invocation_id,
    r.user_id,
    s.root_agent,
    s.convention,
    r.start_ns,
    r.end_ns,
    make_timestamp(r.start_ns // 1000) AS started_at,
    r.duration_ms AS latency_ms,
    CASE WHEN NOT coalesce(l.calls_folded, false) THEN coalesce(l.llm_calls, 0) END AS llm_calls,
    CASE WHEN NOT coalesce(l.calls_folded, false) THEN coalesce(l.llm_errors, 0) END AS llm_errors,
    coalesce(t.tool_calls, 0) AS tool_calls,
    CASE WHEN t.turn_id IS NULL THEN 0 ELSE t.tool_errors END AS tool_errors,
    l.input_tokens,
    l.output_tokens,
    l.reasoning_tokens,
    l.cached_tokens,
    l.total_tokens,
    coalesce(l.models, []) AS models,
    coalesce(ra.a."tracegrade.user_text", l.user_text) AS user_text,
    coalesce(ra.a."tracegrade.final_text", l.final_text) AS final_text,
    t.args_captured,
    coalesce(s.is_error, false) AS is_error,
    s.error_type,
    s.error_message,
    r.service_name,
    ra.resource->>'service.version' AS service_version
FROM summary s
JOIN query_table(normalised) r ON r.trace_id = s.trace_id AND r.span_id = s.root_span_id
JOIN root_attrs ra ON ra.trace_id = s.trace_id AND ra.span_id = s.root_span_id
LEFT JOIN llm l USING (turn_id)
LEFT JOIN tools t USING (turn_id)
WHERE s.is_agent_turn
),
agent_texts AS (
    -- Turns whose model calls recorded no texts: the root agent span's messages, where it
    -- carries them (Strands, the OTel GenAI utilities). Only agent spans are read (in a
    -- scoring, from its normalised table: the messages of those rows only).
    SELECT a.trace_id, a.span_id,
           tg_user_text(a.input_messages) AS user_text, tg_output_text(a.output_messages) AS final_text
    FROM query_table(normalised) a
    SEMI JOIN read_turns r
      ON r.trace_id = a.trace_id AND r.root_span_id = a.span_id
     AND (r.user_text IS NULL OR r.final_text IS NULL)
    WHERE a.op = 'agent'
)
SELECT t.* REPLACE (
    coalesce(t.user_text, a.user_text) AS user_text,
    coalesce(t.final_text, a.final_text) AS final_text
)
FROM read_turns t
LEFT JOIN agent_texts a ON a.trace_id = t.trace_id AND a.span_id = t.root_span_id;

CREATE OR REPLACE VIEW turns AS
SELECT * FROM tg_turns('agent_spans', 'span_tree', 'llm_calls', 'tool_calls', 'spans');
