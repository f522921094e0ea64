-- tool_definitions: one row per tool definition seen: a tool an agent's model was given,
-- with its description and parameter schema, from the model calls' spans
-- (gen_ai.tool.definitions) and from what eval runs recorded of their agents' tools. A tool
-- whose description or schema changed has a row per version.
--
-- Columns:
--   agent_name    the agent whose model was given the tool
--   name          the tool
--   description   its description, as the model read it
--   parameters    its parameter schema (JSON text: JSON Schema, or google-genai's
--                 OpenAPI-style dialect); NULL when it declares none, or when content
--                 capture was off (ADK then records names and descriptions only)
--   source        spans (model calls) or eval_run (recorded by `tracegrade run`)
--   model_calls   how many model calls were given this version (0 for eval_run rows)
--   first_seen    the first model call (or run) that had it
--   last_seen     the last one
CREATE OR REPLACE VIEW tool_definitions AS
WITH offered AS (
    SELECT agent_name, start_ns, unnest(tg_tool_definitions(tool_definitions)) AS d
    FROM agent_spans
    WHERE op = 'llm' AND tool_definitions IS NOT NULL
),
recorded AS (
    SELECT r.start_ns, a.key AS agent_name, unnest(tg_tool_definitions(a.value)) AS d
    FROM spans r, json_each(r.attributes->>'tracegrade.tool_definitions') a
    WHERE r.scope_name = 'tracegrade' AND r.name = 'tracegrade.eval_run'
),
versions AS (
    SELECT agent_name, d.name, d.description, d.parameters, 'spans' AS source,
           count(*) AS model_calls, min(start_ns) AS first_ns, max(start_ns) AS last_ns
    FROM offered
    GROUP BY ALL
    UNION ALL
    SELECT agent_name, d.name, d.description, d.parameters, 'eval_run', 0,
           min(start_ns), max(start_ns)
    FROM recorded
    GROUP BY ALL
)
SELECT
    agent_name,
    name,
    description,
    parameters,
    source,
    model_calls,
    make_timestamp(first_ns // 1000) AS first_seen,
    make_timestamp(last_ns // 1000) AS last_seen
FROM versions
