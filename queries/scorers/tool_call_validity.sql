-- metric: tool_call_validity
-- better: higher
-- needs: nothing
-- One row per turn that called tools: the share of its calls that were valid, among those
-- that could be checked. A call is valid when it names a tool the model was given for that
-- call (by the model call that asked for it) and its arguments, as sent, satisfy that
-- tool's parameter schema: JSON Schema checked by a JSON Schema library (jsonschema-rs),
-- google-genai's OpenAPI-style schemas converted first; see tool_calls.validity_errors for
-- the reasons. A call cannot be checked when no definitions were recorded for its model call
-- or its arguments were not captured; score NULL when no call could be, with the reason.
-- detail: {calls, checked, invalid: [{seq, name, errors: [{argument, kind, message}]}],
-- reason}
WITH inputs AS (
    -- Each distinct input checked once: repeats of a call share their check.
    SELECT DISTINCT tool_offered, tool_schema, raw_args FROM scored_calls
),
checks AS (
    SELECT *, tg_json_schema_check(tool_offered, tool_schema, raw_args) AS checked
    FROM inputs
),
calls AS (
    SELECT c.turn_id, c.seq, c.name, k.checked.valid AS valid, k.checked.errors AS errors
    FROM scored_calls c
    JOIN checks k
      ON k.tool_offered IS NOT DISTINCT FROM c.tool_offered
     AND k.tool_schema IS NOT DISTINCT FROM c.tool_schema
     AND k.raw_args IS NOT DISTINCT FROM c.raw_args
)
SELECT
    turn_id,
    count(*) FILTER (valid)::DOUBLE / nullif(count(valid), 0) AS score,
    json_object(
        'calls', count(*),
        'checked', count(valid),
        'invalid', coalesce(
            list({'seq': seq, 'name': name, 'errors': errors} ORDER BY seq) FILTER (NOT valid), []),
        'reason', CASE WHEN count(valid) = 0
            THEN 'not checked: ' || arg_min(errors[1].message, seq) END
    ) AS detail
FROM calls
GROUP BY turn_id
