-- tg_span_attrs(attributes): the span attributes the views read, parsed out of the
-- attributes JSON in one pass: a STRUCT with one VARCHAR field per attribute key (the value
-- as `attributes->>'key'` gives it; gen_ai.response.finish_reasons as JSON), NULL where the
-- span lacks the key. The span writer stores it in `spans.attrs` as each span is written,
-- and migration 004 filled it for spans stored before, so the views do not parse every
-- span's JSON on every query (measured: ~1.2 µs a key a span, 45 keys read per span).
-- Message contents (gen_ai.input.messages, ...) are left out: they are most of a span's
-- bytes, and only model-call spans need them.
--
-- The fields must be those of the `spans.attrs` column (migration 004), in its order; a
-- test holds them equal. A change here needs a migration that refills the column.
CREATE OR REPLACE MACRO tg_span_attrs(attributes) AS json_transform(attributes, '{
    "gen_ai.operation.name": "VARCHAR",
    "openinference.span.kind": "VARCHAR",
    "gen_ai.system": "VARCHAR",
    "error.type": "VARCHAR",
    "gen_ai.conversation.id": "VARCHAR",
    "gcp.vertex.agent.session_id": "VARCHAR",
    "session.id": "VARCHAR",
    "gcp.vertex.agent.invocation_id": "VARCHAR",
    "tracegrade.user_id": "VARCHAR",
    "user.id": "VARCHAR",
    "gen_ai.agent.name": "VARCHAR",
    "agent.name": "VARCHAR",
    "gen_ai.workflow.name": "VARCHAR",
    "gen_ai.tool.name": "VARCHAR",
    "tool.name": "VARCHAR",
    "gen_ai.tool.call.id": "VARCHAR",
    "tool.id": "VARCHAR",
    "gen_ai.tool.type": "VARCHAR",
    "gen_ai.tool.call.arguments": "VARCHAR",
    "gcp.vertex.agent.tool_call_args": "VARCHAR",
    "tool.parameters": "VARCHAR",
    "gen_ai.tool.call.result": "VARCHAR",
    "gcp.vertex.agent.tool_response": "VARCHAR",
    "gen_ai.request.model": "VARCHAR",
    "gen_ai.response.model": "VARCHAR",
    "llm.model_name": "VARCHAR",
    "gen_ai.usage.input_tokens": "VARCHAR",
    "gen_ai.usage.prompt_tokens": "VARCHAR",
    "llm.token_count.prompt": "VARCHAR",
    "gen_ai.usage.output_tokens": "VARCHAR",
    "gen_ai.usage.completion_tokens": "VARCHAR",
    "llm.token_count.completion": "VARCHAR",
    "gen_ai.usage.reasoning.output_tokens": "VARCHAR",
    "llm.token_count.completion_details.reasoning": "VARCHAR",
    "gen_ai.usage.cache_read.input_tokens": "VARCHAR",
    "llm.token_count.prompt_details.cache_read": "VARCHAR",
    "gen_ai.response.finish_reasons": "JSON",
    "tracegrade.run_id": "VARCHAR",
    "tracegrade.eval_set_id": "VARCHAR",
    "tracegrade.case_id": "VARCHAR",
    "tracegrade.repeat": "VARCHAR",
    "tracegrade.turn_index": "VARCHAR",
    "tracegrade.user_text": "VARCHAR",
    "tracegrade.final_text": "VARCHAR"
}');
