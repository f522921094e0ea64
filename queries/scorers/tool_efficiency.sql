-- metric: tool_efficiency
-- better: higher
-- needs: nothing
-- range: 0..1
-- One row per turn that called tools: distinct (name, canonical args) calls / all calls,
-- so 1.0 means no call was repeated. NULL when arguments were not captured (repeats
-- cannot be told apart from calls with other arguments).
-- detail: {calls, distinct, consecutive_repeats (a call identical to the one before: a loop
-- signal), repeated: [{name, args, times}]}
WITH calls AS (
    SELECT
        turn_id, name, args, args_captured,
        name = lag(name) OVER w AND args IS NOT DISTINCT FROM lag(args) OVER w AS repeats_previous
    FROM scored_calls
    WINDOW w AS (PARTITION BY turn_id ORDER BY seq)
),
distinct_calls AS (
    SELECT
        turn_id, name, args,
        count(*) AS times,
        bool_and(args_captured) AS captured,
        count(*) FILTER (repeats_previous) AS consecutive_repeats
    FROM calls
    GROUP BY turn_id, name, args
)
SELECT
    turn_id,
    CASE WHEN bool_and(captured) THEN count(*) / sum(times) END AS score,
    json_object(
        'calls', sum(times)::BIGINT,
        'distinct', count(*),
        'consecutive_repeats', sum(consecutive_repeats)::BIGINT,
        'repeated', list({'name': name, 'args': args::JSON, 'times': times}) FILTER (times > 1)
    ) AS detail
FROM distinct_calls
GROUP BY turn_id
