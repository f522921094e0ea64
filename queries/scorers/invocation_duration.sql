-- metric: invocation_duration
-- better: lower
-- needs: nothing
-- range: 0..
-- aliases: invocation_duration_v1
-- unit: s
-- One row per turn: its duration in seconds, as ADK's invocation_duration_v1, with ADK's
-- breakdown: model = union of the model-call intervals, tool = union of the tool-call
-- intervals less model time inside them (an AgentTool's model calls), framework = the rest
-- (at least 0), each rounded to the millisecond.
WITH intervals AS (
    SELECT turn_id, 'model' AS kind, start_ns, end_ns FROM scored_llm_calls
    UNION ALL
    SELECT turn_id, 'tool', start_ns, end_ns FROM scored_calls
    UNION ALL
    SELECT turn_id, 'nested_model', start_ns, end_ns FROM scored_llm_calls WHERE in_agent_tool
),
unions AS (
    -- Walked in order of start, each interval adds the part of it past the furthest end
    -- reached before it (an earlier interval covers the rest): the sum is the union's length.
    SELECT turn_id, kind, sum(greatest(end_ns - greatest(start_ns, reach), 0)) / 1e9 AS seconds
    FROM (
        SELECT *, coalesce(max(end_ns) OVER (
            PARTITION BY turn_id, kind ORDER BY start_ns
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ), start_ns) AS reach
        FROM intervals
    )
    GROUP BY ALL
),
parts AS (
    SELECT
        t.turn_id,
        t.latency_ms / 1000 AS total,
        coalesce(max(u.seconds) FILTER (u.kind = 'model'), 0) AS model,
        greatest(coalesce(max(u.seconds) FILTER (u.kind = 'tool'), 0)
                 - coalesce(max(u.seconds) FILTER (u.kind = 'nested_model'), 0), 0) AS tool
    FROM scored_turns t
    LEFT JOIN unions u USING (turn_id)
    GROUP BY ALL
)
SELECT
    turn_id,
    total AS score,
    json_object(
        'model', round(model, 3),
        'tool', round(tool, 3),
        'framework', round(greatest(total - model - tool, 0), 3)
    ) AS detail
FROM parts
