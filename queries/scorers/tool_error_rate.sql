-- metric: tool_error_rate
-- better: lower
-- needs: nothing
-- range: 0..1
-- One row per turn that called tools: the share of its tool calls that failed (raised,
-- returned an error, or named an unknown tool). NULL without tool calls.
-- detail: {calls, errors: [{name, kind, message}]}
SELECT
    turn_id,
    count(*) FILTER (is_error)::DOUBLE / count(*) AS score,
    json_object(
        'calls', count(*),
        'errors', coalesce(
            list({'name': name, 'kind': error_kind, 'message': error_message} ORDER BY seq)
                FILTER (is_error),
            [])
    ) AS detail
FROM scored_calls
GROUP BY turn_id
