-- Tool definitions and the check of a call against them.
--
-- tg_tool_definitions(doc): the tools a model call was given, as a list of
-- {name, description, parameters} (parameters: the JSON Schema text, NULL when the
-- declaration has none or content capture removed it), from `gen_ai.tool.definitions`
-- (ADK v2, GenAI semantic conventions). NULL when doc is NULL or not a JSON list.
CREATE OR REPLACE MACRO tg_tool_definitions(doc) AS (
    CASE WHEN json_valid(doc) AND json_type(doc::JSON) = 'ARRAY' THEN list_transform(
        from_json(doc::JSON, '[{"name": "VARCHAR", "description": "VARCHAR", "parameters": "JSON"}]'),
        lambda d: {
            'name': d.name,
            'description': d.description,
            'parameters': CASE WHEN json_type(d.parameters) <> 'NULL' THEN d.parameters::VARCHAR END
        }
    ) END
);

-- tg_tool_offer(definitions, name): how a call to `name` stands against a model call's tool
-- definitions (tg_tool_definitions): STRUCT(offered BOOLEAN, parameters VARCHAR). offered is
-- NULL when definitions is NULL (nothing recorded), else whether the tool was among them.
CREATE OR REPLACE MACRO tg_tool_offer(definitions, name) AS (
    list_transform(
        [list_filter(definitions, lambda d: d.name = name)],
        lambda found: {
            'offered': CASE WHEN definitions IS NOT NULL THEN len(found) > 0 END,
            'parameters': found[1].parameters
        }
    )[1]
);

-- tg_tool_call_check(offered, schema, args): a call checked against its schema, as
-- STRUCT(valid BOOLEAN, errors STRUCT(argument, kind, message)[]). The check is a JSON
-- Schema validator tracegrade registers from Python on each of its connections (see
-- tracegrade.store.view_functions); in another DuckDB client this stand-in answers
-- "not checked".
CREATE OR REPLACE MACRO tg_tool_call_check(offered, schema, args) AS (
    {
        'valid': NULL::BOOLEAN,
        'errors': [{
            'argument': '',
            'kind': 'not_checked',
            'message': 'checked only where tracegrade registered its JSON Schema validator'
        }]
    }
);

-- tg_blank_result(result): whether a tool's recorded result (JSON text) is blank: empty,
-- null, {} or [], or ADK's wrapping of such a return value ({"result": null}, "" ...).
CREATE OR REPLACE MACRO tg_blank_result(result) AS (
    trim(result) IN ('', 'null', '{}', '[]', '""')
    OR (json_valid(result) AND json_type(result::JSON) = 'OBJECT'
        AND json_keys(result::JSON) = ['result']
        AND coalesce(trim(result::JSON->>'result'), '') IN ('', '{}', '[]'))
);

-- tg_error_predicate(name, args, result): the user's SQL expression marking a tool call's
-- result as a domain error (tool_error_rate's `error_predicate`). The scoring engine defines
-- it on its connection for each scoring; this stand-in marks nothing.
CREATE OR REPLACE MACRO tg_error_predicate(name, args, result) AS NULL::BOOLEAN;
