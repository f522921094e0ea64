-- tg_message_object(o): the messages of an ADK v1 document parsed as {contents, content}:
-- a request's contents, or a response's one content; [] for an object with neither.
CREATE OR REPLACE MACRO tg_message_object(o) AS (
    CASE WHEN o IS NOT NULL THEN coalesce(
        o.contents, CASE WHEN o.content IS NOT NULL THEN [o.content] END, []
    ) END
);

-- tg_messages(doc): the messages of a model call as [{role, text, tool_calls}], whatever
-- convention recorded them: a GenAI-semconv message list (ADK v2 gen_ai.input.messages /
-- gen_ai.output.messages), an ADK v1 llm_request ({"contents": [...]}) or llm_response
-- ({"content": {...}}). text joins the message's text parts with a newline (NULL if none);
-- tool_calls counts its tool-call parts. NULL for NULL or invalid JSON.
CREATE OR REPLACE MACRO tg_messages(doc) AS (
    list_transform(
        -- Each document parsed once (a json_valid, json_type and json_exists each parse it
        -- again: measured ~2x the CPU at 640k ADK documents); invalid JSON gives NULL.
        CASE WHEN starts_with(ltrim(doc, e' \t\n\r'), '[')
            THEN try(from_json(doc, '[{"role": "VARCHAR", "parts": [{"type": "VARCHAR",
                "content": "VARCHAR", "text": "VARCHAR", "thought": "BOOLEAN",
                "function_call": "JSON"}]}]'))
            ELSE tg_message_object(try(from_json(doc, '{
                "contents": [{"role": "VARCHAR", "parts": [{"type": "VARCHAR", "content": "VARCHAR",
                    "text": "VARCHAR", "thought": "BOOLEAN", "function_call": "JSON"}]}],
                "content": {"role": "VARCHAR", "parts": [{"type": "VARCHAR", "content": "VARCHAR",
                    "text": "VARCHAR", "thought": "BOOLEAN", "function_call": "JSON"}]}}')))
        END,
        lambda m: {
            'role': m.role,
            'text': nullif(array_to_string(list_transform(
                list_filter(m.parts, lambda p:
                    coalesce(p.type, 'text') = 'text' AND NOT coalesce(p.thought, false)
                    AND coalesce(p.content, p.text) IS NOT NULL),
                lambda p: coalesce(p.content, p.text)), chr(10)), ''),
            'tool_calls': len(list_filter(m.parts, lambda p:
                p.type = 'tool_call' OR p.function_call IS NOT NULL))
        }
    )
);

-- tg_messages_user_text(messages), tg_messages_text(messages), tg_messages_tool_calls(messages):
-- the three below on messages tg_messages already parsed, so that a view needing more than
-- one parses a document once (a model call's request repeats the session's history: kilobytes).
CREATE OR REPLACE MACRO tg_messages_user_text(messages) AS (
    list_filter(
        list_transform(
            list_filter(messages, lambda m: m.role = 'user' AND m.text IS NOT NULL),
            lambda m: m.text),
        lambda t: NOT starts_with(t, 'For context:')
    )[-1]
);

CREATE OR REPLACE MACRO tg_messages_text(messages) AS (
    nullif(array_to_string(list_filter(
        list_transform(messages, lambda m: m.text), lambda t: t IS NOT NULL), chr(10)), '')
);

CREATE OR REPLACE MACRO tg_messages_tool_calls(messages) AS (
    list_sum(list_transform(messages, lambda m: m.tool_calls))
);

-- tg_user_text(doc): the latest real user message of a model call's input: the last
-- user-role message with text, skipping the "For context:" transcripts ADK injects
-- when another agent spoke before.
CREATE OR REPLACE MACRO tg_user_text(doc) AS tg_messages_user_text(tg_messages(doc));

-- tg_output_text(doc): all text of a model call's output, NULL if it had none.
CREATE OR REPLACE MACRO tg_output_text(doc) AS tg_messages_text(tg_messages(doc));

-- tg_output_tool_calls(doc): how many tool calls a model call's output asked for.
CREATE OR REPLACE MACRO tg_output_tool_calls(doc) AS tg_messages_tool_calls(tg_messages(doc));

-- tg_first_part_field(doc, field): `field` of the first part of a message list's first
-- message, as JSON text: a Strands tool span's details event carries the call's arguments
-- (tool_call part) and its result (tool_call_response part) so. NULL if absent.
CREATE OR REPLACE MACRO tg_first_part_field(doc, field) AS (
    CASE WHEN doc IS NOT NULL THEN try(json_extract(doc, '$[0].parts[0].' || field))::VARCHAR END
);

-- tg_oi_indexes(keys, prefix): the indexes N of the keys `prefix` || N || '.'... among keys,
-- as 0 .. the largest (OpenInference flattens lists into such keys).
CREATE OR REPLACE MACRO tg_oi_indexes(keys, prefix) AS (
    range(0, coalesce(list_max(list_transform(
        list_filter(keys, lambda k: starts_with(k, prefix)),
        lambda k: try_cast(split_part(k[length(prefix) + 1:], '.', 1) AS INTEGER)
    )) + 1, 0))
);

-- tg_oi_messages(attributes, prefix): OpenInference's flattened messages (prefix
-- llm.input_messages or llm.output_messages: `<prefix>.<i>.message.role`, `.content`,
-- `.contents.<j>.message_content.text`, `.tool_calls.<j>.tool_call.{id,function.name,
-- function.arguments}`) rebuilt as a GenAI-semconv message list (JSON text), the shape
-- tg_messages reads and tool calls are taken from.
CREATE OR REPLACE MACRO tg_oi_messages(attributes, prefix) AS (
    list_transform([{'a': attributes::JSON, 'keys': json_keys(attributes::JSON)}], lambda d:
        to_json(list_transform(tg_oi_indexes(d.keys, prefix || '.'), lambda i:
            list_transform([prefix || '.' || i::VARCHAR || '.message.'], lambda m: {
                'role': d.a->>(m || 'role'),
                'parts': list_filter(list_concat(
                    [{'type': 'text', 'content': d.a->>(m || 'content'),
                      'id': NULL::VARCHAR, 'name': NULL::VARCHAR, 'arguments': NULL::JSON}],
                    list_transform(tg_oi_indexes(d.keys, m || 'contents.'), lambda j: {
                        'type': 'text',
                        'content': d.a->>(m || 'contents.' || j::VARCHAR || '.message_content.text'),
                        'id': NULL::VARCHAR, 'name': NULL::VARCHAR, 'arguments': NULL::JSON}),
                    list_transform(tg_oi_indexes(d.keys, m || 'tool_calls.'), lambda j:
                        list_transform([m || 'tool_calls.' || j::VARCHAR || '.tool_call.'], lambda t: {
                            'type': 'tool_call',
                            'content': NULL::VARCHAR,
                            'id': d.a->>(t || 'id'),
                            'name': d.a->>(t || 'function.name'),
                            'arguments': try((d.a->>(t || 'function.arguments'))::JSON)})[1])
                ), lambda p: p.content IS NOT NULL OR p.name IS NOT NULL)
            })[1]
        ))::VARCHAR
    )[1]
);

-- tg_oi_tools(attributes): the tools OpenInference recorded a model was given
-- (`llm.tools.<i>.tool.json_schema`, each an OpenAI-style {"type": "function", "function":
-- {name, description, parameters}} or a bare {name, description, parameters}) as a
-- gen_ai.tool.definitions list (JSON text).
CREATE OR REPLACE MACRO tg_oi_tools(attributes) AS (
    list_transform([{'a': attributes::JSON, 'keys': json_keys(attributes::JSON)}], lambda d:
        to_json(list_transform(tg_oi_indexes(d.keys, 'llm.tools.'), lambda i:
            list_transform([try((d.a->>('llm.tools.' || i::VARCHAR || '.tool.json_schema'))::JSON)],
                lambda s: {
                    'name': coalesce(s->'function'->>'name', s->>'name'),
                    'description': coalesce(s->'function'->>'description', s->>'description'),
                    'parameters': coalesce(s->'function'->'parameters', s->'parameters')
                })[1]
        ))::VARCHAR
    )[1]
);

-- tg_tool_call_parts(doc): the tool calls a model call's response asks for, in order:
-- [{name, id, args}], args as JSON text (a string argument document is unwrapped), NULL when
-- the part carried none at all, as Gemini calls a tool without parameters (ADK tells that
-- None from `{}`). Reads a GenAI-semconv message list (`tool_call` parts, `"arguments":
-- null`) and ADK v1's llm_response object (`function_call` parts, no `args`). NULL or []
-- for a document that is neither.
CREATE OR REPLACE MACRO tg_tool_call_parts(doc) AS (
    list_transform(
        list_filter(
            flatten(list_transform(
                CASE WHEN starts_with(ltrim(doc, e' \t\n\r'), '[')
                    THEN try(from_json(doc, '[{"parts": [{"type": "VARCHAR", "id": "VARCHAR",
                        "name": "VARCHAR", "arguments": "JSON",
                        "function_call": {"id": "VARCHAR", "name": "VARCHAR", "args": "JSON"}}]}]'))
                    ELSE tg_message_object(try(from_json(doc, '{
                        "contents": [{"parts": [{"type": "VARCHAR", "id": "VARCHAR", "name": "VARCHAR",
                            "arguments": "JSON",
                            "function_call": {"id": "VARCHAR", "name": "VARCHAR", "args": "JSON"}}]}],
                        "content": {"parts": [{"type": "VARCHAR", "id": "VARCHAR", "name": "VARCHAR",
                            "arguments": "JSON",
                            "function_call": {"id": "VARCHAR", "name": "VARCHAR", "args": "JSON"}}]}}')))
                END,
                lambda m: m.parts)),
            lambda p: (p.type = 'tool_call' AND p.name IS NOT NULL) OR p.function_call.name IS NOT NULL),
        lambda p: {
            'name': coalesce(p.name, p.function_call.name),
            'id': nullif(coalesce(p.id, p.function_call.id), ''),
            'args': list_transform([coalesce(p.arguments, p.function_call.args)], lambda a:
                CASE WHEN json_type(a) = 'VARCHAR' THEN a->>'$' ELSE a::VARCHAR END)[1]
        }
    )
);
