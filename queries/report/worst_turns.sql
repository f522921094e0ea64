-- worst_turns: the turns of a scoring, the worst first: errors, then turns whose tools
-- failed (the most failed calls first), then the most metrics failed, then the slowest.
-- One page of them; one row per turn.
-- Parameters: scoring_id, limit, offset.
--
-- Columns:
--   turn_id, root_agent, models, latency_ms, total_tokens, is_error, error_message,
--   tool_errors, user_text
--                      as in turns
--   started_us         the turn's start, epoch microseconds
--   failed             the metrics it failed, by name
--   cost_usd           its cost_usd score
--   total              turns in the scoring (the same on every row)
WITH per_turn AS (
    SELECT turn_id,
           coalesce(list(metric ORDER BY metric) FILTER (status = 'failed'), []) AS failed,
           any_value(score) FILTER (metric = 'cost_usd') AS cost_usd
    FROM scores
    WHERE scoring_id = ? AND level = 'turn'
    GROUP BY turn_id
)
SELECT p.turn_id, t.root_agent, t.models, epoch_us(t.started_at) AS started_us, t.latency_ms,
       t.total_tokens::BIGINT AS total_tokens, t.is_error, t.error_message, t.tool_errors,
       t.user_text,
       p.failed, p.cost_usd, count(*) OVER () AS total
FROM per_turn p
JOIN turns t USING (turn_id)
ORDER BY t.is_error DESC, t.tool_errors DESC, len(p.failed) DESC, t.latency_ms DESC NULLS LAST, p.turn_id
LIMIT ? OFFSET ?
