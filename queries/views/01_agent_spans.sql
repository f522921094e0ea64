-- agent_spans: one row per span, normalised across the conventions agents emit: ADK schema
-- v2 (google-adk 2.x default), ADK schema v1 (ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN=1),
-- OpenInference (its google-adk, openai and langchain instrumentors), pydantic-ai, Strands,
-- plain OTel GenAI semantic conventions (opentelemetry-instrumentation-genai-openai, util-genai)
-- and tracegrade's own eval spans; docs/sources.md says what is read from each.
-- Columns that do not apply to a span are NULL; a count nobody reported is NULL, never 0, and
-- a count that cannot be known (calls_folded) is NULL, never a wrong number.
--
-- Columns:
--   trace_id           the span's trace (32 hex digits)
--   span_id            the span (16 hex digits)
--   parent_span_id     its parent, NULL for a root
--   name               span name, e.g. execute_tool get_weather
--   op                 what the span is: workflow, agent, llm, tool, llm_wrapper (ADK v1's
--                      call_llm), merged_tools (ADK's execute_tool (merged) marker),
--                      eval_run, eval_case, eval_turn (tracegrade's), or NULL for other spans
--   convention         who wrote the span: adk_v2, adk_v1, openinference, pydantic_ai, strands,
--                      genai_semconv (any other GenAI semconv writer), tracegrade or other
--   start_ns           start, Unix epoch nanoseconds
--   end_ns             end, Unix epoch nanoseconds
--   duration_ms        end - start in milliseconds
--   status_code        UNSET, OK or ERROR
--   status_message     the status description, e.g. ValueError: card declined
--   is_error           status_code = 'ERROR'
--   error_type         error.type, else the first exception event's type (on errors)
--   exception_type     type of the first `exception` event, if any
--   exception_message  message of the first `exception` event, if any
--   session_id         conversation / ADK session id, where the span carries it
--   invocation_id      ADK invocation id (on model-call spans only)
--   user_id            user id where recorded (OpenInference, tracegrade eval turns)
--   agent_name         the agent the span belongs to (workflow name on workflow spans)
--   tool_name          tool spans: the tool called
--   tool_call_id       tool spans: the call id (NULL when ADK recorded '<not specified>')
--   tool_type          tool spans: ADK's tool class, e.g. FunctionTool, AgentTool
--   tool_args          tool spans: the arguments as JSON text; NULL when not captured
--   tool_result        tool spans: the result as JSON text; NULL when not captured
--   model              model-call spans: the model asked
--   calls_folded       the span stands for an unknown number of model calls: OpenInference over
--                      ADK schema v2 relabels the agent's invoke_agent span as its LLM span and
--                      each model call overwrites its counts, so its tokens are NULL
--   input_tokens       model-call spans: prompt tokens (NULL where calls_folded)
--   output_tokens      model-call spans: output tokens (thoughts included, as ADK counts)
--   reasoning_tokens   model-call spans: thought tokens (part of output_tokens)
--   cached_tokens      model-call spans: cached prompt tokens (part of input_tokens)
--   finish_reasons     model-call spans: JSON list, e.g. ["stop"]
--   input_messages     model-call and agent spans: the request's messages as JSON, when captured:
--                      from the span's attributes, else from its
--                      gen_ai.client.inference.operation.details events (Strands), else
--                      rebuilt from OpenInference's flattened llm.input_messages.* attributes
--   output_messages    the same for the response (agent spans: the agent's answer)
--   tool_definitions   model-call spans: the tools the model was given, a JSON list of
--                      {name, description, parameters, ...} (gen_ai.tool.definitions,
--                      OpenInference's llm.tools.*, or ADK v1's model request; parameters
--                      are null unless content was captured)
--   service_name       resource service.name
--   scope_name         instrumentation scope, e.g. gcp.vertex.agent
--   attributes         all span attributes (JSON)
--
-- tg_agent_spans(source): the same rows for the spans of the relation named `source` (a
-- table or view with the columns of `spans`): scoring normalises only the selected traces.
CREATE OR REPLACE MACRO tg_agent_spans(source) AS TABLE
WITH typed AS NOT MATERIALIZED (
    -- `attrs` as the writer stored it; parsed here only for a span written otherwise. Two
    -- branches, not a CASE, so that what reads no content (trace_marks) does not read every
    -- span's attributes (~1.2 of ~5.6 s CPU at 1.16M ADK spans).
    SELECT s.*, s.attrs AS a FROM query_table(source) s WHERE s.attrs IS NOT NULL
    UNION ALL
    SELECT s.*, tg_span_attrs(s.attributes) AS a FROM query_table(source) s WHERE s.attrs IS NULL
),
trace_marks AS (
    -- Decided per trace: a GROUP BY joined back, not a window, which would buffer every
    -- span's attributes (measured at 1.16M ADK spans: 10 s CPU and 4.5 GB for the window).
    SELECT
        trace_id,
        -- ADK schema v1 leaves these marks; v1 and v2 invoke_agent spans look alike.
        bool_or(
            (scope_name = 'gcp.vertex.agent' AND name IN ('invocation', 'call_llm'))
            OR a."gcp.vertex.agent.tool_call_args" IS NOT NULL
        ) AS trace_is_adk_v1,
    FROM typed
    GROUP BY trace_id
),
hidden_content AS (
    -- With ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=false, v1 writes '{}' for every content
    -- attribute, which would read as a call with no arguments. The empty model request
    -- (never '{}' when captured) tells the two apart. Apart, so that only call_llm spans'
    -- attributes are read.
    SELECT trace_id, bool_or(attributes->>'gcp.vertex.agent.llm_request' = '{}') AS hides
    FROM query_table(source)
    WHERE name = 'call_llm'
    GROUP BY trace_id
),
raw AS (
    SELECT
        s.*,
        s.a."gen_ai.operation.name"   AS gen_op,
        s.a."openinference.span.kind" AS oi_kind,
        s.scope_name = 'gcp.vertex.agent'
            OR s.a."gcp.vertex.agent.invocation_id" IS NOT NULL AS from_adk,
        m.trace_is_adk_v1,
        -- A trace with no call_llm span cannot say content was hidden: ADK Go puts every
        -- span in a trace of its own, and its tool spans carry their arguments.
        coalesce(h.hides, false) AS trace_hides_adk_v1_content,
        CASE WHEN s.events <> '[]' THEN list_filter(
            json_extract(s.events, '$[*]'), lambda e: json_extract_string(e, '$.name') = 'exception'
        ) END AS exceptions,
        -- Where the latest GenAI semconv puts a call's messages instead of attributes (Strands:
        -- the input at the span's start, the output at its end, one event each).
        CASE WHEN s.events <> '[]' THEN list_filter(
            json_extract(s.events, '$[*]'),
            lambda e: json_extract_string(e, '$.name') = 'gen_ai.client.inference.operation.details'
        ) END AS details
    FROM typed s
    JOIN trace_marks m USING (trace_id)
    LEFT JOIN hidden_content h USING (trace_id)
),
classified AS (
    SELECT
        raw.*,
        CASE
            WHEN scope_name = 'tracegrade' AND name = 'tracegrade.eval_turn' THEN 'eval_turn'
            WHEN scope_name = 'tracegrade' AND name = 'tracegrade.eval_run' THEN 'eval_run'
            WHEN scope_name = 'tracegrade' AND name = 'tracegrade.eval_case' THEN 'eval_case'
            WHEN gen_op = 'execute_tool' AND a."gen_ai.tool.name" = '(merged tools)'
                THEN 'merged_tools'
            -- v1's call_llm wraps the generate_content span, except under OpenInference,
            -- which suppresses the child and moves its attributes up.
            WHEN from_adk AND name = 'call_llm' AND gen_op IS NULL THEN 'llm_wrapper'
            WHEN from_adk AND name = 'invocation' THEN 'workflow'
            WHEN gen_op IN ('generate_content', 'chat', 'text_completion') THEN 'llm'
            WHEN gen_op = 'execute_tool' THEN 'tool'
            WHEN gen_op IN ('invoke_agent', 'create_agent') THEN 'agent'
            WHEN gen_op = 'invoke_workflow' THEN 'workflow'
            WHEN oi_kind = 'LLM' THEN 'llm'
            WHEN oi_kind = 'TOOL' THEN 'tool'
            WHEN oi_kind = 'AGENT' THEN 'agent'
            WHEN oi_kind = 'CHAIN' AND name LIKE 'invocation%' THEN 'workflow'
            WHEN a."gen_ai.system" IS NOT NULL THEN 'llm'
        END AS op,
        CASE
            WHEN scope_name = 'tracegrade' THEN 'tracegrade'
            WHEN oi_kind IS NOT NULL THEN 'openinference'
            WHEN from_adk AND trace_is_adk_v1 THEN 'adk_v1'
            WHEN from_adk THEN 'adk_v2'
            WHEN scope_name = 'pydantic-ai' THEN 'pydantic_ai'
            WHEN scope_name = 'strands.telemetry.tracer' THEN 'strands'
            WHEN gen_op IS NOT NULL OR a."gen_ai.system" IS NOT NULL THEN 'genai_semconv'
            ELSE 'other'
        END AS convention,
        -- OpenInference over ADK schema v2: ADK's invoke_agent span, relabelled as the LLM
        -- span, its counts overwritten by each model call the agent made.
        coalesce(oi_kind = 'LLM' AND from_adk AND starts_with(name, 'invoke_agent'), false)
            AS calls_folded
    FROM raw
),
with_content AS (
    -- A model call's content attributes, read in one pass over its attributes (a `->>`
    -- each parses the whole document again: 3.2 s against 1.4 s CPU at 320k ADK calls).
    SELECT
        *,
        CASE WHEN op IN ('llm', 'llm_wrapper', 'agent') THEN json_transform(attributes, '{
            "gen_ai.input.messages": "VARCHAR",
            "gcp.vertex.agent.llm_request": "VARCHAR",
            "input.value": "VARCHAR",
            "gen_ai.output.messages": "VARCHAR",
            "gcp.vertex.agent.llm_response": "VARCHAR",
            "output.value": "VARCHAR",
            "gen_ai.tool.definitions": "VARCHAR",
            "llm.input_messages.0.message.role": "VARCHAR",
            "llm.output_messages.0.message.role": "VARCHAR",
            "llm.tools.0.tool.json_schema": "VARCHAR"
        }') END AS c,
        -- The details events' messages: the first event that has them (input), the last (output).
        list_filter(
            list_transform(details, lambda e: e->'attributes'->>'gen_ai.input.messages'),
            lambda m: m IS NOT NULL
        )[1] AS event_input,
        list_filter(
            list_transform(details, lambda e: e->'attributes'->>'gen_ai.output.messages'),
            lambda m: m IS NOT NULL
        )[-1] AS event_output
    FROM classified
)
SELECT
    trace_id,
    span_id,
    parent_span_id,
    name,
    op,
    convention,
    start_ns,
    end_ns,
    (end_ns - start_ns) / 1e6 AS duration_ms,
    status_code,
    status_message,
    status_code = 'ERROR' AS is_error,
    coalesce(
        a."error.type",
        CASE WHEN status_code = 'ERROR' THEN exceptions[1]->'attributes'->>'exception.type' END
    ) AS error_type,
    -- The first exception event: how a raised error is recorded.
    exceptions[1]->'attributes'->>'exception.type' AS exception_type,
    exceptions[1]->'attributes'->>'exception.message' AS exception_message,
    coalesce(
        a."gen_ai.conversation.id",
        a."gcp.vertex.agent.session_id",
        a."session.id"
    ) AS session_id,
    a."gcp.vertex.agent.invocation_id" AS invocation_id,
    coalesce(a."tracegrade.user_id", a."user.id") AS user_id,
    coalesce(
        a."gen_ai.agent.name",
        a."agent.name",
        CASE WHEN op = 'workflow' THEN a."gen_ai.workflow.name" END
    ) AS agent_name,
    CASE WHEN op IN ('tool', 'merged_tools')
        THEN coalesce(a."gen_ai.tool.name", a."tool.name") END AS tool_name,
    CASE WHEN op = 'tool'
        THEN nullif(coalesce(a."gen_ai.tool.call.id", a."tool.id"), '<not specified>')
    END AS tool_call_id,
    CASE WHEN op = 'tool' THEN a."gen_ai.tool.type" END AS tool_type,
    CASE WHEN op = 'tool' THEN coalesce(
        a."gen_ai.tool.call.arguments",
        CASE WHEN NOT trace_hides_adk_v1_content THEN a."gcp.vertex.agent.tool_call_args" END,
        a."tool.parameters",
        CASE WHEN oi_kind = 'TOOL' THEN attributes->>'input.value' END,
        -- Strands: only in the details event's tool_call part.
        tg_first_part_field(event_input, 'arguments')
    ) END AS tool_args,
    CASE WHEN op = 'tool' THEN coalesce(
        a."gen_ai.tool.call.result",
        CASE WHEN NOT trace_hides_adk_v1_content THEN a."gcp.vertex.agent.tool_response" END,
        CASE WHEN oi_kind = 'TOOL' THEN attributes->>'output.value' END,
        tg_first_part_field(event_output, 'response')
    ) END AS tool_result,
    CASE WHEN op IN ('llm', 'llm_wrapper') THEN coalesce(
        a."gen_ai.request.model",
        a."gen_ai.response.model",
        a."llm.model_name"
    ) END AS model,
    calls_folded,
    -- Token counts only on 'llm' spans: ADK v1 repeats them on the call_llm wrapper. None on a
    -- folded span: they are one call's of several.
    CASE WHEN op = 'llm' AND NOT calls_folded THEN coalesce(
        a."gen_ai.usage.input_tokens",
        a."gen_ai.usage.prompt_tokens",
        a."llm.token_count.prompt"
    )::BIGINT END AS input_tokens,
    CASE WHEN op = 'llm' AND NOT calls_folded THEN coalesce(
        a."gen_ai.usage.output_tokens",
        a."gen_ai.usage.completion_tokens",
        a."llm.token_count.completion"
    )::BIGINT END AS output_tokens,
    CASE WHEN op = 'llm' AND NOT calls_folded THEN coalesce(
        a."gen_ai.usage.reasoning.output_tokens",
        a."llm.token_count.completion_details.reasoning"
    )::BIGINT END AS reasoning_tokens,
    CASE WHEN op = 'llm' AND NOT calls_folded THEN coalesce(
        a."gen_ai.usage.cache_read.input_tokens",
        a."llm.token_count.prompt_details.cache_read"
    )::BIGINT END AS cached_tokens,
    CASE WHEN op = 'llm' THEN a."gen_ai.response.finish_reasons" END AS finish_reasons,
    coalesce(
        c."gen_ai.input.messages",
        c."gcp.vertex.agent.llm_request",
        -- OpenInference over ADK: ADK's request document. Other OpenInference instrumentors'
        -- input.value is the client library's request (OpenAI's, LangChain's): the flattened
        -- messages say the same in one shape.
        CASE WHEN oi_kind = 'LLM' AND from_adk THEN c."input.value" END,
        CASE WHEN op <> 'tool' THEN event_input END,
        CASE WHEN oi_kind = 'LLM' AND c."llm.input_messages.0.message.role" IS NOT NULL
            THEN tg_oi_messages(attributes, 'llm.input_messages') END,
        CASE WHEN oi_kind = 'LLM' THEN c."input.value" END
    ) AS input_messages,
    coalesce(
        c."gen_ai.output.messages",
        c."gcp.vertex.agent.llm_response",
        CASE WHEN oi_kind = 'LLM' AND from_adk THEN c."output.value" END,
        CASE WHEN op <> 'tool' THEN event_output END,
        CASE WHEN oi_kind = 'LLM' AND c."llm.output_messages.0.message.role" IS NOT NULL
            THEN tg_oi_messages(attributes, 'llm.output_messages') END,
        CASE WHEN oi_kind = 'LLM' THEN c."output.value" END
    ) AS output_messages,
    CASE
        WHEN op = 'llm' THEN coalesce(
            c."gen_ai.tool.definitions",
            CASE WHEN c."llm.tools.0.tool.json_schema" IS NOT NULL THEN tg_oi_tools(attributes) END
        )
        -- ADK v1: the function declarations in the model request, in the same shape.
        WHEN op = 'llm_wrapper' AND NOT trace_hides_adk_v1_content THEN to_json(list_transform(
            json_extract(
                c."gcp.vertex.agent.llm_request", '$.config.tools[*].function_declarations[*]'
            ),
            lambda d: {
                'name': d->>'name',
                'description': d->>'description',
                'parameters': coalesce(d->'parameters_json_schema', d->'parameters')
            }
        ))::VARCHAR
    END AS tool_definitions,
    service_name,
    scope_name,
    attributes
FROM with_content;

CREATE OR REPLACE VIEW agent_spans AS SELECT * FROM tg_agent_spans('spans');
