-- spans: the attributes the views read, copied out of `attributes` when a span is written
-- (see tg_span_attrs in queries/macros/00_span_attrs.sql); existing spans are filled here.
-- `attributes` stays the lossless record: `attrs` only spares every query the JSON parsing.
--
-- Columns:
--   attrs            the attributes the views read, one field per key, e.g.
--                    attrs."gen_ai.tool.name": the value as `attributes->>'key'` gives it
--                    (gen_ai.response.finish_reasons as JSON), NULL where the span lacks
--                    the key; message contents are left out (read them from attributes)
ALTER TABLE spans ADD COLUMN attrs STRUCT(
    "gen_ai.operation.name" VARCHAR,
    "openinference.span.kind" VARCHAR,
    "gen_ai.system" VARCHAR,
    "error.type" VARCHAR,
    "gen_ai.conversation.id" VARCHAR,
    "gcp.vertex.agent.session_id" VARCHAR,
    "session.id" VARCHAR,
    "gcp.vertex.agent.invocation_id" VARCHAR,
    "tracegrade.user_id" VARCHAR,
    "user.id" VARCHAR,
    "gen_ai.agent.name" VARCHAR,
    "agent.name" VARCHAR,
    "gen_ai.workflow.name" VARCHAR,
    "gen_ai.tool.name" VARCHAR,
    "tool.name" VARCHAR,
    "gen_ai.tool.call.id" VARCHAR,
    "tool.id" VARCHAR,
    "gen_ai.tool.type" VARCHAR,
    "gen_ai.tool.call.arguments" VARCHAR,
    "gcp.vertex.agent.tool_call_args" VARCHAR,
    "tool.parameters" VARCHAR,
    "gen_ai.tool.call.result" VARCHAR,
    "gcp.vertex.agent.tool_response" VARCHAR,
    "gen_ai.request.model" VARCHAR,
    "gen_ai.response.model" VARCHAR,
    "llm.model_name" VARCHAR,
    "gen_ai.usage.input_tokens" VARCHAR,
    "gen_ai.usage.prompt_tokens" VARCHAR,
    "llm.token_count.prompt" VARCHAR,
    "gen_ai.usage.output_tokens" VARCHAR,
    "gen_ai.usage.completion_tokens" VARCHAR,
    "llm.token_count.completion" VARCHAR,
    "gen_ai.usage.reasoning.output_tokens" VARCHAR,
    "llm.token_count.completion_details.reasoning" VARCHAR,
    "gen_ai.usage.cache_read.input_tokens" VARCHAR,
    "llm.token_count.prompt_details.cache_read" VARCHAR,
    "gen_ai.response.finish_reasons" JSON,
    "tracegrade.run_id" VARCHAR,
    "tracegrade.eval_set_id" VARCHAR,
    "tracegrade.case_id" VARCHAR,
    "tracegrade.repeat" VARCHAR,
    "tracegrade.turn_index" VARCHAR,
    "tracegrade.user_text" VARCHAR,
    "tracegrade.final_text" VARCHAR
);

UPDATE spans SET attrs = tg_span_attrs(attributes);
