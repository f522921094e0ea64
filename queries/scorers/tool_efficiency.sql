-- metric: tool_efficiency
-- better: higher
-- needs: nothing
-- One row per turn that called tools: distinct (name, canonical args) calls / all calls,
-- so 1.0 means no call was repeated. NULL when arguments were not captured (repeats
-- cannot be told apart from calls with other arguments).
-- detail: {calls, distinct, consecutive_repeats (a call identical to the one before: a loop
-- signal), repeated: [{name, args, times}]}
WITH calls AS (
    SELECT
        turn_id, seq, name, args, args_captured,
        name = lag(name) OVER w AND args IS NOT DISTINCT FROM lag(args) OVER w AS repeats_previous
    FROM scored_calls
    WINDOW w AS (PARTITION BY turn_id ORDER BY seq)
),
repeated AS (
    SELECT turn_id, list({'name': name, 'args': args::JSON, 'times': times}) AS calls
    FROM (SELECT turn_id, name, args, count(*) AS times FROM calls GROUP BY ALL HAVING count(*) > 1)
    GROUP BY turn_id
)
SELECT
    c.turn_id,
    CASE WHEN bool_and(c.args_captured)
        THEN count(DISTINCT (c.name, c.args))::DOUBLE / count(*) END AS score,
    json_object(
        'calls', count(*),
        'distinct', count(DISTINCT (c.name, c.args)),
        'consecutive_repeats', count(*) FILTER (c.repeats_previous),
        'repeated', any_value(r.calls)
    ) AS detail
FROM calls c
LEFT JOIN repeated r USING (turn_id)
GROUP BY c.turn_id
