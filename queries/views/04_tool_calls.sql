-- tool_calls: one row per tool execution, in call order within its turn (seq).
-- ADK's `execute_tool (merged)` marker spans are left out. Calls made inside an AgentTool
-- are kept, flagged in_agent_tool, and get no seq: they are not part of the turn's
-- trajectory (ADK eval does not see them either).
-- In a turn with no tool spans at all (the OTel openai instrumentation records none, nor do
-- OpenInference's model-client instrumentors), the calls are those the model's responses
-- asked for (tool_call parts of output_messages): span_id is then the model call's, start_ns
-- its end (+ the part's place), and what only a tool span says (result, errors) is NULL.
--
-- Columns:
--   turn_id            the turn (see turns)
--   trace_id           the span's trace
--   span_id            the tool span
--   seq                1, 2, ... in start order within the turn; NULL inside an AgentTool
--   in_agent_tool      made by an agent an AgentTool ran
--   name               the tool
--   args               arguments as JSON text, as the model sent them; NULL when not captured
--   args_captured      whether args were recorded (ADK records none by default)
--   args_omitted       the model sent the call without any arguments (Gemini's way with a tool
--                      without parameters; ADK runs it with `{}`, which args then shows),
--                      as the response that asked for it records; false when it sent some,
--                      `{}` included; NULL when not captured, or when args is `{}` and no
--                      ADK response that asked for it was captured (docs/metrics.md, "Calls
--                      without arguments")
--   result             the result as JSON text, when captured
--   call_id            the call id (ADK's adk-<uuid>, or the model's own)
--   tool_type          ADK's tool class: FunctionTool, AgentTool, TransferToAgentTool...
--   agent_name         the agent that called it
--   agent_path         enclosing agents, e.g. fanout.news_branch
--   response_span_id   the model call whose response asked for it
--   parallel_group     calls sharing it came from one model response, or from branches of
--                      a ParallelAgent, so their relative order depends on timing
--   is_error           the call failed (NULL when no tool span says)
--   error_kind         returned_error ({"error": ...}), unknown_tool, raised, or error
--   error_type         error.type, e.g. TOOL_ERROR, ValueError
--   error_message      what went wrong: the tool's own message where it returned one
--                      ({"error": "unknown isbn 000"} gives unknown isbn 000), else the
--                      span's status message (e.g. ValueError: card declined), else its
--                      exception's message, else its result (pydantic-ai's ModelRetry)
--   tool_offered       whether the tool was among those the model was given for this call
--                      (the model call that asked for it); NULL when none were recorded
--   tool_schema        that tool's parameter schema as the model was given it (JSON text;
--                      JSON Schema, or google-genai's OpenAPI-style dialect); NULL when it
--                      declared none or content capture left it out. Eval runs record their
--                      agents' schemas, used where the spans lack them
--   valid              the call names a tool the model was given and its arguments satisfy
--                      that tool's schema (types, required, enums, ranges, patterns, formats,
--                      nested objects and arrays); NULL when it cannot be checked
--   validity_errors    one {argument, kind, message} per problem: kind is unknown_tool,
--                      missing_argument, unexpected_argument, wrong_type, not_in_enum,
--                      out_of_range, pattern_mismatch, bad_format or schema_mismatch;
--                      argument is a path such as address.zip or tags[0]. Empty when valid;
--                      when valid is NULL, one entry of kind not_checked says why
--   start_ns           start, epoch ns
--   end_ns             end, epoch ns
--   duration_ms        duration in milliseconds
--   convention         how the span was recorded (see agent_spans)
--   from_parts         the call is known only from the model's response (no tool span)
--
-- tg_tool_calls(normalised, tree): the same, over the relations named `normalised` (rows of
-- agent_spans) and `tree` (their span_tree rows), as scoring builds it.
CREATE OR REPLACE MACRO tg_tool_calls(normalised, tree) AS TABLE
WITH placed AS MATERIALIZED (
    -- Tool spans, and model-call spans (for the calls no tool span records), placed in their
    -- turns: walked once, read twice. No message documents: the model calls' are read below.
    SELECT
        t.turn_id, t.turn_span_id, t.tool_depth, t.agent_path, t.fanout_span_id, t.model_span_id,
        s.* EXCLUDE (attributes, input_messages, output_messages, tool_definitions),
        bool_or(s.op = 'tool') OVER (PARTITION BY t.turn_id) AS turn_has_tool_spans
    FROM query_table(normalised) s
    JOIN query_table(tree) t USING (trace_id, span_id)
    WHERE s.op IN ('tool', 'llm')
),
calls AS (
    SELECT * EXCLUDE (model_span_id, turn_has_tool_spans) FROM placed WHERE op = 'tool'
),
model_calls AS MATERIALIZED (
    -- Read twice: for the call a tool span answers, and for the calls of turns without tool
    -- spans. The response is kept (as text) only where it names a tool call, a substring test
    -- far cheaper than parsing every response.
    SELECT
        trace_id, parent_span_id, span_id, start_ns, tool_definitions,
        CASE WHEN (op = 'llm' AND contains(output_messages, '"tool_call"'))
                  -- ADK v1's responses, for the calls sent without arguments (below).
                  OR (op = 'llm_wrapper' AND contains(output_messages, '"function_call"'))
            THEN output_messages END AS response_doc
    FROM query_table(normalised)
    WHERE op IN ('llm', 'llm_wrapper')
),
span_calls AS (
    -- The model call that asked for a tool is the latest model call under the same agent
    -- span that started before it; calls sharing it came from one model response.
    SELECT c.*, m.span_id AS response_span_id, m.tool_definitions AS offered_definitions,
           m.response_doc, false AS from_parts
    FROM calls c
    ASOF LEFT JOIN model_calls m
        ON m.trace_id = c.trace_id
       AND m.parent_span_id = c.parent_span_id
       AND c.start_ns >= m.start_ns
),
part_calls AS (
    -- Turns without tool spans: the calls their (outermost) model calls' responses asked for.
    SELECT
        p.turn_id, p.turn_span_id, p.tool_depth, p.agent_path, p.fanout_span_id,
        p.trace_id, p.span_id, p.parent_span_id, p.agent_name, p.convention,
        p.span_id AS response_span_id, m.tool_definitions AS offered_definitions,
        p.end_ns + a.i AS start_ns,
        a.part.name AS tool_name,
        a.part.id AS tool_call_id,
        a.part.args AS tool_args,
        true AS from_parts
    FROM placed p
    JOIN model_calls m USING (trace_id, span_id)
    CROSS JOIN LATERAL (
        SELECT unnest(range(1, len(parts) + 1)) AS i, unnest(parts) AS part
        FROM (SELECT tg_tool_call_parts(m.response_doc) AS parts)
    ) a
    WHERE p.op = 'llm' AND p.model_span_id IS NULL AND NOT p.turn_has_tool_spans
      AND m.response_doc IS NOT NULL
),
with_response AS (
    -- A span's arguments that are not a JSON object (OpenInference's LangChain tool spans
    -- record the tool's input string): the model's, from its response: the part with the
    -- span's call id, else the n-th call of that tool in the response.
    SELECT
        c.* EXCLUDE (response_doc, nth) REPLACE (
            CASE WHEN c.tool_args IS NULL OR starts_with(ltrim(c.tool_args), '{') THEN c.tool_args
                ELSE coalesce(
                    list_filter(tg_tool_call_parts(c.response_doc),
                        lambda p: p.id = c.tool_call_id)[1].args,
                    list_filter(tg_tool_call_parts(c.response_doc),
                        lambda p: p.name = c.tool_name)[c.nth].args,
                    c.tool_args)
            END AS tool_args
        ),
        -- A call the model sent without arguments runs, and its span records, as `{}`, but
        -- ADK's evaluator tells the two apart (None != {}): the response's n-th call of the
        -- tool says which it was. Only ADK's spans are read so (its two schemas write a call
        -- without arguments as such; other producers' messages may drop an empty
        -- `arguments`), and only for `{}` calls is the response parsed.
        CASE
            WHEN c.convention IN ('adk_v1', 'adk_v2')
             AND regexp_matches(c.tool_args, '^\s*\{\s*\}\s*$')
                THEN list_transform(
                    [list_filter(tg_tool_call_parts(c.response_doc), lambda p: p.name = c.tool_name)],
                    lambda ps: CASE WHEN len(ps) >= c.nth THEN ps[c.nth].args IS NULL END)[1]
            WHEN NOT regexp_matches(c.tool_args, '^\s*\{\s*\}\s*$') THEN false
        END AS args_omitted
    FROM (
        SELECT *, row_number() OVER (
            PARTITION BY trace_id, response_span_id, tool_name ORDER BY start_ns, span_id
        ) AS nth
        FROM span_calls
    ) c
    UNION ALL BY NAME
    SELECT * FROM part_calls
),
recorded AS (
    -- Eval runs record each agent's tool definitions on the run's span ({agent: [...]}),
    -- for spans that lack them (the turns' run ids: tg_run_ids).
    SELECT turn.trace_id, turn.span_id AS turn_span_id,
           run.attributes->>'tracegrade.tool_definitions' AS run_definitions
    FROM tg_run_ids('spans', 'tracegrade.eval_turn') turn
    JOIN spans run
      ON run.scope_name = 'tracegrade' AND run.name = 'tracegrade.eval_run'
     AND coalesce(run.attrs."tracegrade.run_id", run.attributes->>'tracegrade.run_id') = turn.run_id
),
offers AS (
    SELECT w.*, r.run_definitions
    FROM with_response w
    LEFT JOIN recorded r USING (trace_id, turn_span_id)
),
-- Each distinct (definitions, tool) pair parsed and looked up once, then joined back: the
-- model calls of an agent share one definitions document, and a run one record (parsed
-- per call, this was most of the view's CPU: ~5 of 8 s at 370k ADK tool calls).
span_offers AS (
    SELECT offered_definitions, tool_name,
           tg_tool_offer(tg_tool_definitions(offered_definitions), tool_name) AS span_offer
    FROM (SELECT DISTINCT offered_definitions, tool_name FROM offers)
),
run_offers AS (
    SELECT run_definitions, agent_name, tool_name,
           tg_tool_offer(tg_tool_definitions(run_definitions->>agent_name), tool_name) AS run_offer
    FROM (SELECT DISTINCT run_definitions, agent_name, tool_name FROM offers)
),
checked AS (
    SELECT
        o.*,
        coalesce(s.span_offer.offered, r.run_offer.offered) AS tool_offered,
        -- Content capture leaves the parameters out of the spans: the run's record has them.
        coalesce(s.span_offer.parameters, r.run_offer.parameters) AS tool_schema
    FROM offers o
    LEFT JOIN span_offers s
      ON s.offered_definitions IS NOT DISTINCT FROM o.offered_definitions
     AND s.tool_name IS NOT DISTINCT FROM o.tool_name
    LEFT JOIN run_offers r
      ON r.run_definitions IS NOT DISTINCT FROM o.run_definitions
     AND r.agent_name IS NOT DISTINCT FROM o.agent_name
     AND r.tool_name IS NOT DISTINCT FROM o.tool_name
),
validated AS (
    SELECT *, tg_tool_call_check(tool_offered, tool_schema, tool_args) AS validity
    FROM checked
)
SELECT
    turn_id,
    trace_id,
    span_id,
    tg_turn_seq(turn_id, tool_depth, start_ns, span_id) AS seq,
    tool_depth > 0 AS in_agent_tool,
    tool_name AS name,
    tool_args AS args,
    tool_args IS NOT NULL AS args_captured,
    args_omitted,
    tool_result AS result,
    tool_call_id AS call_id,
    tool_type,
    agent_name,
    agent_path,
    response_span_id,
    -- Calls in one group have no fixed order: they came from one model response, or from
    -- branches of an agent whose sub-agents ran in parallel.
    coalesce(fanout_span_id, response_span_id, span_id) AS parallel_group,
    is_error,
    CASE
        WHEN NOT coalesce(is_error, false) THEN NULL
        WHEN error_type = 'TOOL_ERROR' THEN 'returned_error'
        WHEN tool_type = 'BaseTool' THEN 'unknown_tool'
        WHEN exception_type IS NOT NULL THEN 'raised'
        ELSE 'error'
    END AS error_kind,
    error_type,
    coalesce(
        CASE WHEN is_error AND json_valid(tool_result) THEN tool_result->>'$.error' END,
        status_message,
        CASE WHEN is_error THEN exception_message END,
        -- pydantic-ai's ModelRetry: no status text; the result is the message sent back.
        CASE WHEN is_error AND NOT json_valid(tool_result) THEN tool_result END
    ) AS error_message,
    tool_offered,
    tool_schema,
    validity.valid,
    validity.errors AS validity_errors,
    start_ns,
    end_ns,
    duration_ms,
    convention,
    from_parts
FROM validated;

CREATE OR REPLACE VIEW tool_calls AS SELECT * FROM tg_tool_calls('agent_spans', 'span_tree');
