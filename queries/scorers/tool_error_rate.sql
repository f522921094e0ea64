-- metric: tool_error_rate
-- better: lower
-- needs: nothing
-- range: 0..1
-- One row per turn that called tools: the share of its tool calls that failed: raised,
-- returned an error ({"error": ...}), named an unknown tool, returned a blank result (unless
-- the option blank_is_error is false; transfer_to_agent, which returns nothing by design,
-- excepted), or matched the option error_predicate, a SQL expression over the call's name,
-- args and result (JSON text) marking domain errors, e.g. result->>'status' = 'failed'.
-- NULL without tool calls.
-- detail: {calls, errors: [{name, kind, message}]}; kind is the error_kind of tool_calls,
-- blank_result or domain_error; message is the tool's own where it gave one.
WITH calls AS (
    SELECT
        *,
        CASE
            WHEN is_error THEN error_kind
            WHEN coalesce((getvariable('tg_options')->>'blank_is_error')::BOOLEAN, true)
                AND tg_blank_result(result) AND tool_type IS DISTINCT FROM 'TransferToAgentTool'
                THEN 'blank_result'
            WHEN coalesce(tg_error_predicate(name, raw_args, result), false) THEN 'domain_error'
        END AS failure
    FROM scored_calls
)
SELECT
    turn_id,
    count(failure)::DOUBLE / count(*) AS score,
    json_object(
        'calls', count(*),
        'errors', coalesce(
            list({
                'name': name,
                'kind': failure,
                'message': CASE failure
                    WHEN 'blank_result' THEN 'the tool returned nothing'
                    WHEN 'domain_error' THEN 'error_predicate matched its result: ' || result
                    ELSE error_message
                END
            } ORDER BY seq) FILTER (failure IS NOT NULL),
            [])
    ) AS detail
FROM calls
GROUP BY turn_id
