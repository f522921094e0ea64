-- rule_window_scores: the turn-level scores of one online rule's window: every traffic
-- scoring of the rule (each serve pass is one), kept for the turns whose root span started
-- in the window (turn time, not scoring time). A turn scored twice under the rule counts
-- once per metric, with its latest score (the rule metric_series keeps). One row per turn
-- and metric, with the columns of `scores`.
-- Parameters (positional, as the traffic report embeds it): ? rule, ? the window's start
-- (epoch ns, included), ? its end (epoch ns, excluded).
SELECT s.*
FROM scores s
JOIN scorings g USING (scoring_id)
JOIN spans r
  ON r.trace_id = split_part(s.turn_id, '-', 1) AND r.span_id = split_part(s.turn_id, '-', 2)
WHERE g.run_id IS NULL
  AND g.selection->>'rule' = ?
  AND s.level = 'turn'
  AND r.start_ns >= ?
  AND r.start_ns < ?
QUALIFY row_number() OVER (
    PARTITION BY s.turn_id, s.metric ORDER BY g.scored_at DESC, s.scoring_id DESC
) = 1
