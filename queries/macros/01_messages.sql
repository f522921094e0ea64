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

-- tg_messages_call_parts(doc): the tool-call parts of a model call's messages, in order, as
-- [{name, args}]: args the JSON the part carried, NULL when it carried none at all (GenAI
-- messages' `"arguments": null`, an ADK v1 `function_call` without `args`), as Gemini calls
-- a tool without parameters. NULL for NULL or invalid JSON.
CREATE OR REPLACE MACRO tg_messages_call_parts(doc) AS (
    list_transform(
        list_filter(
            flatten(list_transform(
                CASE WHEN starts_with(ltrim(doc, e' \t\n\r'), '[')
                    THEN try(from_json(doc, '[{"parts": [{"type": "VARCHAR", "name": "VARCHAR",
                        "arguments": "JSON", "function_call": {"name": "VARCHAR", "args": "JSON"}}]}]'))
                    ELSE tg_message_object(try(from_json(doc, '{
                        "contents": [{"parts": [{"type": "VARCHAR", "name": "VARCHAR", "arguments": "JSON",
                            "function_call": {"name": "VARCHAR", "args": "JSON"}}]}],
                        "content": {"parts": [{"type": "VARCHAR", "name": "VARCHAR", "arguments": "JSON",
                            "function_call": {"name": "VARCHAR", "args": "JSON"}}]}}')))
                END,
                lambda m: m.parts)),
            lambda p: p.type = 'tool_call' OR p.function_call IS NOT NULL),
        lambda p: {
            'name': coalesce(p.name, p.function_call.name),
            'args': coalesce(p.arguments, p.function_call.args)::VARCHAR
        }
    )
);
